"""How the CLI tells a user what went wrong: one line on stderr (JSON with ``--json``), in CLI
words, plus one hint when there is something to do about it.

Rules:

* Never a traceback: ``entry()`` routes every exception here (Ctrl-C prints one line and exits
  130; an unexpected exception says so in one line, ``LLMBRIDGE_DEBUG=1`` shows its traceback).
* Library words become flags: ``providers={'x': {'base_url': ...}}`` → ``--base-url``, ``api_key``
  → ``--api-key``. A 401 names the key variable(s) the provider reads; a 404 from an
  OpenAI-compatible server whose base URL lacks ``/v1`` says so; an HTML page (a web server,
  not an LLM API) is cut to its title; a failed connection says where the CLI looked.
* A replay's ``ReplayMismatch`` keeps its lines: the diff of the recorded and the sent request
  is read line by line (each line inert, as everything written).
* ``retry_notes()`` prints "retrying in 2.0 s (429 from openai)" on stderr for each retry the
  transport makes (it listens to the ``llmbridge`` logger's retry records).
* What is written is inert (``terminal``): a message quoting a server's or model's text cannot
  drive the terminal; JSON lines escape DEL and C1 too.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import httpx

from ..errors import (
    AuthenticationError,
    CertificateError,
    ConnectionError,
    LLMBridgeError,
    NotFoundError,
)
from ..terminal import json_line, terminal_text
from ..testing.replay import ReplayMismatch

__all__ = [
    "KEY_VARS",
    "CLIError",
    "cli_words",
    "connection_hint",
    "error_hint",
    "report",
    "retry_notes",
]

KEY_VARS = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "openai-responses": ("OPENAI_API_KEY",),
}
"""Key variables of the native providers (OpenAI-compatible presets say theirs themselves)."""

LOCAL_SERVERS = {
    "ollama": "Ollama",
    "vllm": "vLLM",
    "llamacpp": "llama.cpp's llama-server",
    "lmstudio": "LM Studio",
    "openai-compatible": "the server",
}

_PROVIDERS_OPTION = re.compile(r"providers=\{'[^']+': \{'(api_key|base_url)': ([^{}]*)\}\}")
HTML = re.compile(r"<!doctype html|<html|<head|<body", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class CLIError(Exception):
    """A mistake in the command line itself (a missing folder, a corrupt file): said as is."""


def cli_words(message: str) -> str:
    """``message`` with library options said as the CLI's flags, and an HTML page cut short."""

    def flag(match: re.Match[str]) -> str:
        value = match.group(2).strip()
        name = "--" + match.group(1).replace("_", "-")
        return name if value in ("...", "") else f"{name} {value.strip(chr(39))}"

    message = _PROVIDERS_OPTION.sub(flag, message)
    html = HTML.search(message)
    if html:
        title = _TITLE.search(message)
        page = f"an HTML page ({' '.join(title.group(1).split())!r})" if title else "an HTML page"
        message = f"{message[: html.start()].rstrip(': ')}: the server answered with {page}"
    return " ".join(message.split())


def key_vars(provider: Any, name: str | None) -> tuple[str, ...]:
    """The environment variables ``provider`` reads its key from."""
    preset = getattr(provider, "preset", None)
    found = getattr(preset, "key_vars", None) or getattr(provider, "key_vars", None)
    if found:
        return tuple(found)
    return KEY_VARS.get(name or "", ())


def connection_hint(exc: BaseException, provider: str | None, base_url: str | None) -> str | None:
    """For a connection that failed: which server the CLI expected, and where."""
    if not isinstance(exc, ConnectionError) or isinstance(exc, CertificateError) or not base_url:
        return None
    url = httpx.URL(base_url)
    where = f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
    server = LOCAL_SERVERS.get(provider or "")
    if server is None:
        return f"could not reach {provider} at {where}: check the network or --base-url"
    return f"is {server} running on {where}? (--base-url points elsewhere)"


def error_hint(exc: BaseException, *, provider: Any = None, name: str | None = None) -> str | None:
    """What the user can do about ``exc`` (``None``: nothing to add)."""
    base_url = getattr(provider, "base_url", None)
    if isinstance(exc, AuthenticationError):
        names = key_vars(provider, name)
        where = " or ".join(names) if names else "the provider's key variable"
        return f"the server refused the key: set {where}, or pass --api-key"
    compatible = getattr(provider, "preset", None) is not None
    path = httpx.URL(base_url).path if base_url else ""
    if isinstance(exc, NotFoundError) and compatible and base_url and "/v1" not in path:
        return (
            f"nothing at {base_url}: OpenAI-compatible servers usually serve under /v1 "
            f"(try --base-url {base_url.rstrip('/')}/v1), or the model name is wrong"
        )
    if isinstance(exc, LLMBridgeError) and HTML.search(exc.message):
        where = f" at {base_url}" if base_url else ""
        return (
            f"the server{where} answered with a web page, not an LLM API: check --base-url "
            "(OpenAI-compatible servers serve under /v1)"
        )
    if isinstance(exc, NotFoundError) and compatible:
        return "the model name may be wrong: llmbridge models " + (name or "PROVIDER")
    return connection_hint(exc, name, base_url)


def report(
    exc: BaseException,
    *,
    as_json: bool = False,
    provider: Any = None,
    name: str | None = None,
    hint: str | None = None,
    out: TextIO | None = None,
) -> None:
    """Print ``exc`` as one line (and a hint) on stderr, or one JSON line with ``as_json``."""
    out = out or sys.stderr
    kind = type(exc).__name__
    text = cli_words(exc.message if isinstance(exc, LLMBridgeError) else str(exc))
    if isinstance(exc, ReplayMismatch):  # a diff is read line by line: its lines are kept
        first, _, rest = str(exc).partition("\n")
        text = cli_words(first) + ("\n" + rest if rest else "")
    if isinstance(exc, LLMBridgeError):
        bits = [f"status {exc.status}"] if exc.status is not None else []
        bits += [f"request id {exc.request_id}"] if exc.request_id else []
        text += f" ({', '.join(bits)})" if bits else ""
    hint = hint or error_hint(exc, provider=provider, name=name)
    if as_json:
        row: dict[str, Any] = {"type": "error", "error": kind, "message": text}
        if isinstance(exc, LLMBridgeError):
            row |= {"provider": exc.provider, "status": exc.status}
        if hint:
            row["hint"] = hint
        out.write(json_line(row) + "\n")
    elif isinstance(exc, CLIError):
        out.write(terminal_text(f"error: {text}") + "\n")
    else:
        out.write(terminal_text(f"error: {kind}: {text}") + "\n")
        if hint:
            out.write(terminal_text(f"hint: {hint}") + "\n")
    if os.environ.get("LLMBRIDGE_DEBUG") and exc.__traceback__ is not None:
        out.write(terminal_text("".join(traceback.format_exception(exc))))
    out.flush()


class _RetryNotes(logging.Handler):
    def __init__(self, out: TextIO, as_json: bool) -> None:
        super().__init__(logging.DEBUG)
        self.out, self.as_json = out, as_json

    def emit(self, record: logging.LogRecord) -> None:
        error = getattr(record, "retry_error", None)
        delay = getattr(record, "retry_delay", None)
        if not isinstance(error, LLMBridgeError) or not isinstance(delay, int | float):
            return
        cause = str(error.status) if error.status is not None else type(error).__name__
        source = f" from {error.provider}" if error.provider else ""
        if self.as_json:
            row = {"type": "retry", "delay": round(delay, 1), "error": type(error).__name__}
            self.out.write(json_line(row | {"status": error.status}) + "\n")
        else:
            self.out.write(terminal_text(f"retrying in {delay:.1f} s ({cause}{source})") + "\n")
        self.out.flush()


@contextmanager
def retry_notes(*, as_json: bool = False, out: TextIO | None = None) -> Iterator[None]:
    """Print a note on ``out`` (stderr) for every retry made inside the block."""
    logger = logging.getLogger("llmbridge")
    handler = _RetryNotes(out or sys.stderr, as_json)
    level = logger.level
    logger.addHandler(handler)
    if not logger.isEnabledFor(logging.DEBUG):
        logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)

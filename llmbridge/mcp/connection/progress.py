"""MCP progress notifications and server log messages.

Rules:

* **Progress.** A tool call asks the server for progress (the SDK's ``progress_callback`` on
  ``call_tool``: it sends a progress token); each ``notifications/progress`` the server sends
  for it reaches the app's ``on_progress=`` as a ``ProgressUpdate`` (server, tool, progress,
  total, message). A sync callback is called inline (keep it quick: it runs on the session's
  receive loop), an async one awaited; one that raises is logged, never fails the call. When
  the call runs inside a recording OpenTelemetry span (the tool loop's ``execute_tool`` span
  with ``Client(telemetry=...)``), each update is also an ``mcp.progress`` event on it, with
  ``mcp.progress``, ``mcp.progress.total`` and ``mcp.progress.message`` (scrubbed). Nothing
  here imports OpenTelemetry: without it loaded, there is no span to look at.
* **Logs.** A server's ``notifications/message`` goes to the ``llmbridge.mcp`` logger as
  ``MCP server 'name' [logger]: text`` at the matching level (``LEVELS``: debug → DEBUG,
  info and notice → INFO, warning → WARNING, error → ERROR, critical, alert and emergency →
  CRITICAL), with ``extra`` fields ``mcp_server``, ``mcp_level`` and ``mcp_logger``. The text
  (``data`` as sent: a string, or JSON) is scrubbed of the connection's secrets (the values
  ``${VAR}`` became, secret-named ``env`` and ``headers`` values, ``secrets=``) as the
  stderr tail is, then cut at ``MAX_LOG_CHARS`` with its control characters escaped; the
  ``logger`` name likewise, at ``MAX_NAME_CHARS`` (``llmbridge.mcp.log_text``): one
  record is one bounded line, and a server cannot forge another.
* ``log_level=`` (one of the MCP levels) asks the server for that level and above
  (``logging/setLevel`` right after ``initialize``, when the server announced logging).
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import orjson

from ...errors import UsageError
from ..content import field_of
from ..log_text import MAX_LOG_CHARS, MAX_NAME_CHARS, log_text

__all__ = [
    "LEVELS",
    "MAX_LOG_CHARS",
    "LogLevel",
    "ProgressCallback",
    "ProgressUpdate",
    "check_log_level",
    "current_span",
    "logging_callback",
    "progress_reporter",
]

_log = logging.getLogger("llmbridge.mcp")

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]

LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
"""MCP log level → ``logging`` level."""


@dataclass(frozen=True, slots=True)
class ProgressUpdate:
    """One progress notification of a tool call."""

    server: str | None
    tool: str
    """The server's name for the tool being called."""
    progress: float
    total: float | None = None
    message: str | None = None


ProgressCallback: TypeAlias = Callable[[ProgressUpdate], "Awaitable[None] | None"]
"""The app's ``on_progress=``, sync or async."""


def check_log_level(level: Any) -> LogLevel | None:
    """``level`` if it is an MCP log level (``None`` passes), else ``UsageError``."""
    if level is None or level in LEVELS:
        return level  # type: ignore[no-any-return]
    raise UsageError(f"log_level= must be one of {list(LEVELS)}, got {level!r}")


def current_span() -> Any:
    """The recording OpenTelemetry span of the calling task, or ``None`` (without importing
    OpenTelemetry: not loaded means telemetry is off)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    try:
        span = trace.get_current_span()
        return span if span.is_recording() else None
    except Exception:  # telemetry never changes what the app gets
        return None


def progress_reporter(
    on_progress: ProgressCallback | None,
    *,
    server: str | None,
    tool: str,
    span: Any,
    scrub: Callable[[str], str],
) -> Callable[[float, float | None, str | None], Awaitable[None]] | None:
    """The SDK's ``progress_callback`` for one call (``None`` when nobody listens)."""
    if on_progress is None and span is None:
        return None

    async def report(progress: float, total: float | None, message: str | None) -> None:
        text = scrub(message) if message else message
        if span is not None:
            attributes: dict[str, Any] = {"mcp.progress": float(progress), "mcp.tool": tool}
            if total is not None:
                attributes["mcp.progress.total"] = float(total)
            if text:
                attributes["mcp.progress.message"] = text
            try:
                span.add_event("mcp.progress", attributes)
            except Exception:
                _log.exception("llmbridge: could not record MCP progress on its span")
        if on_progress is None:
            return
        update = ProgressUpdate(server, tool, float(progress), total, text)
        try:
            result = on_progress(update)
            if inspect.isawaitable(result):
                await result
        except Exception:
            _log.exception("on_progress= raised on an update from MCP server %r", server)

    return report


def _text(data: Any) -> str:
    if isinstance(data, str):
        return data
    try:
        return orjson.dumps(data, default=str).decode()
    except TypeError:
        return repr(data)


def logging_callback(
    *, server: str | None, scrub: Callable[[str], str]
) -> Callable[[Any], Awaitable[None]]:
    """The SDK's ``logging_callback``: server log messages to ``llmbridge.mcp``."""
    label = repr(server) if server else "(unnamed)"

    async def log(params: Any) -> None:
        level = log_text(field_of(params, "level") or "info", limit=MAX_NAME_CHARS)
        given = field_of(params, "logger")
        logger = log_text(scrub(str(given)), limit=MAX_NAME_CHARS) if given else None
        text = log_text(scrub(_text(field_of(params, "data"))), limit=MAX_LOG_CHARS)
        _log.log(
            LEVELS.get(level, logging.INFO),
            "MCP server %s%s: %s",
            label,
            f" [{logger}]" if logger else "",
            text,
            extra={"mcp_server": server, "mcp_level": level, "mcp_logger": logger},
        )

    return log

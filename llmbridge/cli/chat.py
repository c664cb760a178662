"""``llmbridge chat``: one live (or replayed / recorded) answer, running tools if given.

Rules: keys come from the environment; ``--replay`` serves fixtures instead of the network and
``--record`` saves live calls as fixtures; ``--tool module:function`` runs the tool loop. Output is
readable text, colored only on a terminal and never when ``NO_COLOR`` is set, or JSON lines.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import httpx
import orjson

from ..client import Client
from ..errors import CertificateError, ConfigurationError, ConnectionError, LLMBridgeError
from ..events import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallEnd,
    event_to_dict,
)
from ..providers.base import ProviderConfig
from ..providers.registry import split_model
from ..stream import RetryPolicy
from ..stream.clients import DEFAULT_TIMEOUT
from ..testing.fixtures import Fixture, dump_json, load_fixture
from ..testing.record import RecordingTransport, replayable_config
from ..testing.redact import secret_scrubber
from ..testing.replay import ReplayMismatch, ReplayTransport
from ..tools.decorator import tool, tool_spec_of
from ..tools.registry import ToolRegistry
from ..tools.results import ToolResult
from ..types import ChatMessage, ToolMode, ToolSpec
from .attach import attachment

__all__ = ["ChatArgs", "ChatPrinter", "load_tool", "replay_fixtures", "run_chat", "use_color"]


_COLORS = {"reasoning": "2", "call": "36", "ok": "32", "error": "31", "meta": "2"}


def use_color(stream: TextIO, *, disabled: bool = False) -> bool:
    """Color only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    return not disabled and not os.environ.get("NO_COLOR") and stream.isatty()


class ChatPrinter:
    """Prints a chat's events: readable text (colored on a terminal) or JSON lines."""

    def __init__(self, out: TextIO, *, as_json: bool, color: bool) -> None:
        self.out, self.as_json, self.color = out, as_json, color
        self._inline: str | None = None  # "text" / "reasoning" while a line is open

    def _paint(self, kind: str, text: str) -> str:
        return f"\x1b[{_COLORS[kind]}m{text}\x1b[0m" if self.color else text

    def _line(self, kind: str, text: str) -> None:
        if self._inline is not None:
            self.out.write("\n")
            self._inline = None
        self.out.write(self._paint(kind, text) + "\n")

    def _stream(self, kind: str, text: str) -> None:
        if self._inline not in (None, kind):
            self.out.write("\n")
        self._inline = kind
        self.out.write(self._paint(kind, text) if kind != "text" else text)

    def event(self, event: StreamEvent | ToolResult) -> None:
        if self.as_json:
            self.out.write(orjson.dumps(_event_json(event)).decode() + "\n")
        elif isinstance(event, TextDelta):
            self._stream("text", event.text)
        elif isinstance(event, ReasoningDelta):
            self._stream("reasoning", event.text)
        elif isinstance(event, ToolCallEnd):
            args = event.raw_arguments or "{}"
            error = f"  ! {event.error}" if event.error else ""
            self._line("call", f"→ {event.name}({args}){error}")
        elif isinstance(event, ToolResult):
            text = event.message.tool_results[0].text if event.message.tool_results else ""
            self._line("error" if event.is_error else "ok", f"← {event.name}: {text}")
        elif isinstance(event, Finish):
            usage = event.usage
            counts = f" · in={usage.input_tokens} out={usage.output_tokens}" if usage else ""
            self._line("meta", f"[{event.reason}{counts}]")
        self.out.flush()

    def error(self, exc: Exception, *, hint: str | None = None) -> None:
        if self._inline is not None and not self.as_json:
            self.out.write("\n")
        self.out.flush()
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if hint:
            print(f"hint: {hint}", file=sys.stderr)


LOCAL_SERVERS = {
    "ollama": "Ollama",
    "vllm": "vLLM",
    "llamacpp": "llama.cpp's llama-server",
    "lmstudio": "LM Studio",
    "openai-compatible": "the server",
}


def connection_hint(exc: Exception, provider: str, base_url: str | None) -> str | None:
    """For a connection that failed: which server the CLI expected, and where."""
    if not isinstance(exc, ConnectionError) or isinstance(exc, CertificateError) or not base_url:
        return None
    url = httpx.URL(base_url)
    where = f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
    server = LOCAL_SERVERS.get(provider)
    if server is None:
        return f"could not reach {provider} at {where}: check the network or --base-url"
    return f"is {server} running on {where}? (--base-url points elsewhere)"


def _event_json(event: StreamEvent | ToolResult) -> dict[str, Any]:
    if isinstance(event, ToolResult):
        parts = event.message.tool_results
        text = parts[0].text if parts else ""
        return {"type": event.type, "id": event.id, "name": event.name, "is_error": event.is_error, "content": text}  # fmt: skip
    return event_to_dict(event)


def load_tool(ref: str) -> Any:
    """``module:function`` → the function (the current directory is importable)."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigurationError(f"--tool takes module:function (got {ref!r})")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(f"--tool {ref}: {type(exc).__name__}: {exc}") from exc
    if tool_spec_of(target) is not None:
        return target
    if not callable(target):
        raise ConfigurationError(f"--tool {ref}: {type(target).__name__} is not callable")
    return tool(target)


def _natural(path: Path) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.name)]


def replay_fixtures(paths: Sequence[Path]) -> list[Fixture]:
    """Each path is a fixture folder, or a folder of fixture folders (played in name order)."""
    out: list[Fixture] = []
    for path in paths:
        if (path / "input.json").exists():
            out.append(load_fixture(path))
            continue
        steps = sorted((p.parent for p in path.glob("*/input.json")), key=_natural)
        if not steps:
            raise ConfigurationError(f"--replay {path}: no fixture (input.json) found there")
        out.extend(load_fixture(step) for step in steps)
    return out


@dataclass
class ChatArgs:
    model: str
    prompt: str
    system: str | None = None
    tools: list[str] = field(default_factory=list)
    tool_mode: ToolMode = "auto"
    max_steps: int = 8
    max_tokens: int | None = None
    seed: int | None = None
    files: list[Path] = field(default_factory=list)
    base_url: str | None = None
    replay: list[Path] = field(default_factory=list)
    record: Path | None = None
    as_json: bool = False
    color: bool = False


async def run_chat(args: ChatArgs) -> int:
    printer = ChatPrinter(sys.stdout, as_json=args.as_json, color=args.color)
    try:
        return await _run_chat(args, printer)
    except (LLMBridgeError, ReplayMismatch) as exc:
        printer.error(exc)
        return 1


async def _run_chat(args: ChatArgs, printer: ChatPrinter) -> int:
    provider_name, model_name = split_model(args.model)
    options: dict[str, Any] = {"base_url": args.base_url} if args.base_url else {}
    registry = ToolRegistry([load_tool(ref) for ref in args.tools])
    transport: httpx.AsyncBaseTransport | None = None
    recorder: RecordingTransport | None = None
    replayer: ReplayTransport | None = None
    if args.replay:
        fixtures = replay_fixtures(args.replay)
        transport = replayer = ReplayTransport(fixtures, strict=False)
        options = {**fixtures[0].provider_config, **options, "api_key": "replay-key"}
    elif args.record is not None:
        transport = recorder = RecordingTransport()
    messages = [ChatMessage.system(args.system)] if args.system else []
    messages.append(ChatMessage.user(args.prompt, *(attachment(f) for f in args.files)))
    turns: list[list[StreamEvent]] = [[]]
    error: LLMBridgeError | None = None
    http = httpx.AsyncClient(transport=transport, timeout=DEFAULT_TIMEOUT)
    async with (
        Client(
            http_client=http,
            providers={provider_name: options},
            retry=RetryPolicy(max_attempts=1) if transport else None,
        ) as client,
        http,
    ):
        loop = None
        events: AsyncIterator[StreamEvent | ToolResult]
        if len(registry):
            events = loop = client.run(
                args.model,
                messages,
                tools=registry,
                max_steps=args.max_steps,
                tool_mode=args.tool_mode,
                max_tokens=args.max_tokens,
                seed=args.seed,
            )
        else:
            events = client.stream(args.model, messages, max_tokens=args.max_tokens, seed=args.seed)
        try:
            async for event in events:
                if isinstance(event, ToolResult):
                    if turns[-1]:
                        turns.append([])
                else:
                    turns[-1].append(event)
                printer.event(event)
        except LLMBridgeError as exc:
            error = exc
        conversation = loop.messages if loop is not None else messages
        if recorder is not None:
            _save_recordings(
                recorder,
                args,
                client,
                model_name,
                conversation,
                registry.specs(),
                turns,
                options,
                error,
            )
    if error is not None:
        base_url = getattr(client.provider(provider_name), "base_url", None)
        printer.error(error, hint=connection_hint(error, provider_name, base_url))
        return 1
    if replayer is not None:
        replayer.assert_all_played()
    return 0


def _save_recordings(
    recorder: RecordingTransport,
    args: ChatArgs,
    client: Client,
    model_name: str,
    conversation: list[ChatMessage],
    specs: list[ToolSpec],
    turns: list[list[StreamEvent]],
    options: dict[str, Any],
    error: LLMBridgeError | None,
) -> None:
    """One fixture per request: ``--record DIR`` itself, or ``DIR/step1``, ``DIR/step2``, ..."""
    assert args.record is not None
    starts = [i for i, m in enumerate(conversation) if m.role == "assistant"]
    count = len(recorder.recordings)
    clean = secret_scrubber(recorder.secrets | ProviderConfig.from_mapping(options).secrets())
    for n, rec in enumerate(recorder.recordings):
        history = conversation[: starts[n]] if n < len(starts) else conversation
        request = client.build_request(
            model_name,
            history,
            tools=specs,
            tool_mode=args.tool_mode,
            max_tokens=args.max_tokens,
            seed=args.seed,
        )
        path = args.record if count == 1 else args.record / f"step{n + 1}"
        Fixture(
            path=path,
            model=args.model,
            request=request,
            provider_config=replayable_config(options),
            http_request=rec.request,
            status=rec.status,
            headers=rec.headers,
            body=b"".join(rec.chunks),
            chunks=[len(c) for c in rec.chunks],
            events=turns[n] if n < len(turns) else [],
        ).save(scrub=clean)
        if error is not None and n == count - 1:
            dump_json(
                path / "error.json",
                {"class": type(error).__name__, "message": clean(error.message)},
            )
    print(f"recorded {count} fixture(s) under {args.record}", file=sys.stderr)

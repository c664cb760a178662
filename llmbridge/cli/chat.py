"""``llmbridge chat``: one live (or replayed / recorded) answer, running tools if given.

Rules: keys come from the environment; ``--replay`` serves fixtures instead of the network and
``--record`` saves live calls as fixtures; ``--tool module:function`` runs the tool loop. Output is
readable text, colored only on a terminal and never when ``NO_COLOR`` is set, or JSON lines.
Whatever a model, tool or server says is written inert (``terminal``: control characters
escaped), so it cannot drive the terminal.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..auth.bearer import auth_secrets
from ..client import Client
from ..errors import ConfigurationError, LLMBridgeError
from ..events import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallEnd,
    event_to_dict,
)
from ..messages import ChatMessage
from ..providers.config import ProviderConfig
from ..providers.registry import split_model
from ..request import ToolMode
from ..secrets import secret_scrubber
from ..terminal import json_line, terminal_text
from ..testing.fixtures import Fixture, dump_json, load_fixture
from ..testing.record import RecordingTransport, replayable_config
from ..tool_spec import ToolSpec
from ..tools.decorator import tool, tool_spec_of
from ..tools.results import ToolResult
from .report import report

__all__ = [
    "ChatArgs",
    "ChatPrinter",
    "load_tool",
    "replay_fixtures",
    "save_recordings",
    "use_color",
]


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
        """``text`` made inert (``terminal_text``), colored when colors are on."""
        text = terminal_text(text)
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
        self.out.write(self._paint(kind, text) if kind != "text" else terminal_text(text))

    def event(self, event: StreamEvent | ToolResult) -> None:
        if self.as_json:
            self.out.write(json_line(_event_json(event)) + "\n")
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

    def end_line(self) -> None:
        """End an open text line (before a prompt, an error or the next turn)."""
        if self._inline is not None and not self.as_json:
            self.out.write("\n")
            self._inline = None
        self.out.flush()

    def error(self, exc: BaseException, *, hint: str | None = None, **where: Any) -> None:
        self.end_line()
        report(exc, as_json=self.as_json, hint=hint, **where)


def _event_json(event: StreamEvent | ToolResult) -> dict[str, Any]:
    if isinstance(event, ToolResult):
        parts = event.message.tool_results
        text = parts[0].text if parts else ""
        return {"type": event.type, "id": event.id, "name": event.name, "is_error": event.is_error, "content": text}  # fmt: skip
    return event_to_dict(event)


def load_tool(ref: str) -> Any:
    """``module:function`` or ``path/to/file.py:function`` → the function (the current
    directory is importable)."""
    module_name, sep, attr = ref.rpartition(":")
    if not sep or not module_name or not attr:
        raise ConfigurationError(
            f"--tool takes module:function or path/to/file.py:function (got {ref!r})"
        )
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = _tool_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(f"--tool {ref}: {type(exc).__name__}: {exc}") from exc
    if tool_spec_of(target) is not None:
        return target
    if not callable(target):
        raise ConfigurationError(f"--tool {ref}: {type(target).__name__} is not callable")
    return tool(target)


def _tool_module(name: str) -> Any:
    """The module ``--tool`` names: a file path (``./tools.py``) or an importable module."""
    if not name.endswith(".py"):
        return importlib.import_module(name)
    path = Path(name).expanduser().resolve()
    if not path.is_file():
        raise ImportError(f"no such file: {name}")
    spec = importlib.util.spec_from_file_location(f"_llmbridge_tools_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{name} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pydantic look their module up
    spec.loader.exec_module(module)
    return module


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
    prompt: str | None
    """The first user message (``None``: an interactive chat, read turn by turn)."""
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
    api_key: str | None = None
    timeout: float | None = None
    temperature: float | None = None
    schema: Path | None = None
    mcp: Path | None = None
    interactive: bool = False
    """Go on turn after turn (the first turn is ``prompt`` when given), until end of input."""
    fallbacks: list[str] = field(default_factory=list)
    """``--fallback``: the models after ``model`` in a fallback chain."""
    provider_options: list[str] = field(default_factory=list)
    """``--option [PROVIDER.]KEY=VALUE``, as given."""
    providers_file: Path | None = None
    """``--providers FILE``: provider name -> options, as ``Client(providers=...)`` takes."""

    def options(self) -> dict[str, Any]:
        """The call options these flags set (``None``s left out)."""
        given: dict[str, Any] = {"max_tokens": self.max_tokens, "seed": self.seed}
        given["temperature"] = self.temperature
        return {k: v for k, v in given.items() if v is not None}


def save_recordings(
    recorder: RecordingTransport,
    args: ChatArgs,
    client: Client,
    model_name: str,
    conversation: list[ChatMessage],
    specs: list[ToolSpec],
    turns: list[list[StreamEvent]],
    options: dict[str, Any],
    error: LLMBridgeError | None,
    request_options: dict[str, Any],
) -> None:
    """One fixture per request: ``--record DIR`` itself, or ``DIR/step1``, ``DIR/step2``, ..."""
    assert args.record is not None
    starts = [i for i, m in enumerate(conversation) if m.role == "assistant"]
    count = len(recorder.recordings)
    sent = auth_secrets(getattr(client.provider(split_model(args.model)[0]), "auth", None))
    clean = secret_scrubber(
        recorder.secrets | ProviderConfig.from_mapping(options).secrets() | sent
    )
    for n, rec in enumerate(recorder.recordings):
        history = conversation[: starts[n]] if n < len(starts) else conversation
        request = client.build_request(
            model_name,
            history,
            tools=specs,
            tool_mode=args.tool_mode,
            **request_options,
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

"""``llmbridge demo`` and ``llmbridge replay``: recorded streams through the real client, offline.

Rules: never touches the network (the replay transport serves the fixtures); one readable line
per event (``describe_event``) or JSON lines. A fixture is data from elsewhere: whatever it
holds is printed inert (``terminal``: control characters escaped; text deltas as ``repr``).
"""

from __future__ import annotations

import importlib.util
import shutil
import textwrap
from importlib import resources
from pathlib import Path

import httpx
import orjson

from ..client import Client
from ..errors import LLMBridgeError
from ..events import (
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    event_to_dict,
)
from ..stream import RetryPolicy
from ..terminal import json_line, terminal_text
from ..testing.fixtures import Fixture, load_fixture
from ..testing.replay import ReplayTransport
from .report import CLIError, report

__all__ = [
    "bundled_fixtures_dir",
    "describe_event",
    "merged_lines",
    "replay_fixture",
    "run_demo",
    "run_replay",
]


def bundled_fixtures_dir() -> Path:
    """The fixtures shipped in the wheel, or the source tree's ``fixtures/`` in a checkout."""
    packaged = Path(str(resources.files("llmbridge"))) / "_fixtures"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "fixtures"


def describe_event(event: StreamEvent) -> str:
    """One short human-readable line for an event, inert on a terminal."""
    return terminal_text(_described(event))


def _described(event: StreamEvent) -> str:
    if isinstance(event, TextDelta):
        return f"text      {event.text!r}"
    if isinstance(event, ReasoningDelta):
        extra = " +signature" if event.signature else (" +data" if event.provider_data else "")
        return f"reasoning {event.text!r}{extra}"
    if isinstance(event, ToolCallStart):
        return f"call ▶    #{event.index} {event.name} ({event.id})"
    if isinstance(event, ToolCallChunk):
        return f"call args #{event.index} {event.arguments_delta!r}"
    if isinstance(event, ToolCallEnd):
        args = orjson.dumps(event.arguments).decode()
        return f"call ■    #{event.index} {event.name}({args})" + (
            f" ERROR {event.error}" if event.error else ""
        )
    if isinstance(event, Finish):
        usage = event.usage
        counts = f" in={usage.input_tokens} out={usage.output_tokens}" if usage else ""
        return f"finish    {event.reason} ({event.raw_reason}){counts}"
    if isinstance(event, StreamStart):
        return f"start     {event.model or ''} {event.response_id or ''}".rstrip()
    if isinstance(event, ProviderItem):
        return _item(event)
    return repr(event)


def _item(event: ProviderItem) -> str:
    """A provider-run item in a few words: its kind, and its text when it has some."""
    data = event.data
    kind = str(data.get("type") or data.get("kind") or "item")
    keys = ("text", kind, "content", "query")
    text = next((data[k] for k in keys if isinstance(data.get(k), str)), "")
    return f"item      {kind}" + (f": {text}" if text else "")


async def replay_fixture(fixture: Fixture) -> tuple[list[StreamEvent], LLMBridgeError | None]:
    """Stream a fixture through a real ``Client`` (offline); return events and any final error."""
    transport = ReplayTransport(fixture)
    config = {**fixture.provider_config, "api_key": "replay-key"}
    events: list[StreamEvent] = []
    async with httpx.AsyncClient(transport=transport) as http:
        client = Client(
            http_client=http,
            providers={fixture.provider: config},
            retry=RetryPolicy(max_attempts=1),
        )
        provider, _ = client.resolve(fixture.model)
        try:
            async for event in client.stream_request(provider, fixture.request):
                events.append(event)
        except LLMBridgeError as exc:
            return events, exc
    return events, None


def _demo_scenario(provider_dir: Path) -> Path | None:
    """The most telling scenario: a clean stream with text and a tool call, if there is one."""

    def score(scenario: Path) -> int:
        golden = (
            (scenario / "events.json").read_text() if (scenario / "events.json").exists() else ""
        )
        clean = not (scenario / "error.json").exists()
        return 4 * clean + 2 * ('"tool_call_end"' in golden) + ('"text_delta"' in golden)

    needed = ("input.json", "request.json", "response.json")
    bodies = ["response.sse"]
    if importlib.util.find_spec("botocore") is not None:  # AWS event streams need the extra
        bodies.append("response.eventstream")
    scenarios = sorted(
        p
        for p in provider_dir.iterdir()
        if all((p / n).exists() for n in needed) and any((p / b).exists() for b in bodies)
    )
    return max(scenarios, key=score) if scenarios else None


def merged_lines(events: list[StreamEvent]) -> list[str]:
    """The demo's view of a stream: consecutive text (and reasoning) merged into one line,
    each tool call as one whole call with its arguments as JSON (no escaped strings)."""
    lines: list[str] = []
    open_kind: type[StreamEvent] | None = None
    for event in events:
        if isinstance(event, TextDelta | ReasoningDelta):
            label = "text      " if isinstance(event, TextDelta) else "reasoning "
            if open_kind is type(event):
                lines[-1] += event.text
            else:
                lines.append(label + event.text)
            open_kind = type(event)
            continue
        open_kind = None
        if isinstance(event, ToolCallStart | ToolCallChunk):
            continue  # the whole call is said at its end
        if isinstance(event, ToolCallEnd):
            args = ", ".join(f"{k}={_shown(v)}" for k, v in event.arguments.items())
            lines.append(
                f"call      {event.name}({args})" + (f" ERROR {event.error}" if event.error else "")
            )
        else:
            lines.append(describe_event(event))
    return [terminal_text(" ".join(line.split("\n"))) for line in lines]


def _shown(value: object) -> str:
    """An argument as a reader wants it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _wrapped(lines: list[str], width: int) -> list[str]:
    """``lines`` wrapped to ``width`` (continuations indented under the text)."""
    out: list[str] = []
    for line in lines:
        head, rest = line[:10], line[10:]
        chunks = textwrap.wrap(rest, max(10, width - 10)) or [""]
        out.append(head + chunks[0])
        out.extend(" " * 10 + c for c in chunks[1:8])
        if len(chunks) > 8:
            out.append(" " * 10 + "…")
    return out


def _columns(blocks: list[tuple[str, list[str]]], width: int) -> str:
    per_row = max(1, min(len(blocks), width // 46))
    col = max(30, width // per_row - 2)
    out: list[str] = []
    blocks = [(title, _wrapped(lines, col)) for title, lines in blocks]
    for start in range(0, len(blocks), per_row):
        row = blocks[start : start + per_row]
        height = max(len(lines) for _, lines in row)
        out.append("  ".join(title[:col].ljust(col) for title, _ in row).rstrip())
        out.append("  ".join(("─" * min(col, 40)).ljust(col) for _ in row).rstrip())
        for i in range(height):
            cells = [(lines[i] if i < len(lines) else "") for _, lines in row]
            out.append("  ".join(c[:col].ljust(col) for c in cells).rstrip())
        out.append("")
    return "\n".join(out)


def _load(path: Path, *, as_json: bool) -> Fixture | None:
    """The fixture at ``path``, or ``None`` after one line on stderr saying why not."""
    try:
        return load_fixture(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # orjson's, pydantic's too
        why = " ".join(str(exc).split())[:200]
        report(
            CLIError(f"{path} is not a readable fixture: {type(exc).__name__}: {why}"),
            as_json=as_json,
        )
        return None


async def run_demo(fixtures_dir: Path, as_json: bool) -> int:
    if not fixtures_dir.is_dir():
        report(CLIError(f"--fixtures {fixtures_dir}: no such folder"), as_json=as_json)
        return 1
    blocks: list[tuple[str, list[str]]] = []
    for provider_dir in sorted(p for p in fixtures_dir.iterdir() if p.is_dir()):
        scenario = _demo_scenario(provider_dir)
        if scenario is None:
            continue
        fixture = _load(scenario, as_json=as_json)
        if fixture is None:
            return 1
        events, error = await replay_fixture(fixture)
        if as_json:
            for event in events:
                print(json_line({"fixture": fixture.name, **event_to_dict(event)}))
            continue
        lines = merged_lines(events)
        if error is not None:
            message = " ".join(error.message.split())
            lines.append(terminal_text(f"error     {type(error).__name__}: {message}"))
        blocks.append((terminal_text(f"{fixture.model}  [{scenario.name}]"), lines))
    if not as_json:
        if not blocks:
            report(CLIError(f"no fixtures found under {fixtures_dir}"), as_json=False)
            return 1
        print("llmbridge demo: recorded provider streams replayed offline, normalized events\n")
        print(_columns(blocks, shutil.get_terminal_size((80, 24)).columns))  # 80 when piped
    return 0


async def run_replay(path: Path, as_json: bool) -> int:
    fixture = _load(path, as_json=as_json)
    if fixture is None:
        return 1
    events, error = await replay_fixture(fixture)
    for event in events:
        print(json_line(event_to_dict(event)) if as_json else describe_event(event))
    if error is not None:
        report(error, as_json=as_json)
        return 1
    return 0

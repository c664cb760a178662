"""Mutations of real fixture bodies for fuzzing decoders (shared by hypothesis and atheris).

A body is cut into its SSE events; a mutation flips a byte, truncates, duplicates or drops an
event, swaps a JSON value for one of another type, or splices in junk. ``apply`` takes plain
integers so any fuzzer can drive it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from llmbridge.errors import LLMBridgeError
from llmbridge.events import StreamEvent
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import Decoder
from llmbridge.testing import Fixture, check_invariants, decode_collect
from llmbridge.testing.prepared import prepared_decoder
from llmbridge.types import ChatRequest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OPS = ("flip", "truncate", "duplicate", "drop", "swap", "splice", "swap_events")
SWAPS: tuple[Any, ...] = (
    None, 0, -1, 2**63, 1.5, "", "x", "\u0000", [], [None], {}, {"type": None}, True, False,
)  # fmt: skip


def load_body_fixture(path: Path) -> Fixture:
    """A fixture without its golden events (fuzzing needs only request and body)."""
    inp = orjson.loads((path / "input.json").read_bytes())
    model = inp.pop("model")
    provider_config = inp.pop("provider_config", {})
    meta = orjson.loads((path / "response.json").read_bytes())
    return Fixture(
        path=path,
        model=model,
        request=ChatRequest.model_validate({**inp, "model": model.partition(":")[2]}),
        provider_config=provider_config,
        http_request={},
        status=meta["status"],
        headers=meta.get("headers", {}),
        body=(path / "response.sse").read_bytes(),
        chunks=meta.get("chunks", []),
    )


@cache
def streamed_fixtures() -> tuple[Fixture, ...]:
    # SSE bodies only: the mutations here cut and corrupt SSE events (event-stream framing
    # faults are tested in tests/providers/bedrock)
    # and NDJSON bodies (kept in response.sse too) are fuzzed in tests/providers/ollama_native
    paths = sorted(p.parent for p in FIXTURES.glob("*/*/response.sse"))
    return tuple(
        fx
        for fx in map(load_body_fixture, paths)
        if fx.status == 200 and getattr(_provider(fx.path), "framing", "sse") == "sse"
    )


@cache
def _provider(fx_path: Path) -> Any:
    fx = load_body_fixture(fx_path)
    config = ProviderConfig.from_mapping({**fx.provider_config, "api_key": "test-key"})
    return create_provider(fx.provider, config)


def new_decoder(fx: Fixture) -> Decoder:
    return prepared_decoder(_provider(fx.path), fx.request)()  # type: ignore[no-any-return]


def _sep(body: bytes) -> bytes:
    return b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    value[path[0]] = _set(value[path[0]], path[1:], new)
    return value


def _swap_json(event: bytes, pick: int, choice: int) -> bytes:
    lines = event.split(b"\n")
    for n, line in enumerate(lines):
        if not line.startswith(b"data:"):
            continue
        try:
            obj = orjson.loads(line[5:])
        except orjson.JSONDecodeError:
            return event
        paths = _paths(obj)
        obj = _set(obj, paths[pick % len(paths)], SWAPS[choice % len(SWAPS)])
        lines[n] = b"data: " + orjson.dumps(obj) + (b"\r" if line.endswith(b"\r") else b"")
        return b"\n".join(lines)
    return event


def apply(body: bytes, op: str, a: int, b: int, junk: bytes = b"") -> bytes:
    """One mutation of ``body``; ``a`` and ``b`` pick positions/choices (any ints)."""
    if not body:
        return junk
    sep = _sep(body)
    events = body.split(sep)
    i = a % len(events)
    if op == "flip":
        pos = a % len(body)
        return body[:pos] + bytes([body[pos] ^ (b % 255 + 1)]) + body[pos + 1 :]
    if op == "truncate":
        return body[: a % len(body)]
    if op == "duplicate":
        events.insert(i, events[i])
    elif op == "drop":
        del events[i]
    elif op == "swap":
        events[i] = _swap_json(events[i], b, a // 7 + b // 3)
    elif op == "swap_events":
        j = b % len(events)
        events[i], events[j] = events[j], events[i]
    elif op == "splice":
        pos = a % len(body)
        return body[:pos] + junk + body[pos:]
    return sep.join(events)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``Hang`` inside the block after ``seconds`` (SIGALRM; main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no result within {seconds}s: a hang")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def decode_checked(
    decoder: Decoder, chunks: list[bytes], *, invariants: bool = True
) -> tuple[list[StreamEvent], LLMBridgeError | None]:
    """Decode; let only llmbridge errors out; check the invariants of what came out."""
    with time_limit(2.0):
        events, error = decode_collect(decoder, chunks)
    if invariants:
        check_invariants(events, complete=error is None)
    return events, error

"""The NDJSON framing and the ``ollama-native`` decoder fuzzed (hypothesis): the fixture bodies
and corpus-shaped lines mutated (bytes flipped, cut, lines dropped, duplicated or swapped, JSON
values of another type, junk spliced in) and split anywhere. Only ``LLMBridgeError`` may escape,
and whatever comes out keeps the event invariants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.providers.ollama_native import OllamaDecoder
from llmbridge.testing import check_invariants, decode_collect

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "ollama-native"
BODIES = [p.read_bytes() for p in sorted(FIXTURES.glob("*/response.sse"))]
VALUES: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, [1], {"a": 1}, True]
KEYS = ["message", "content", "thinking", "tool_calls", "function", "name", "arguments", "done",
        "done_reason", "prompt_eval_count", "eval_count", "error", "response", "id", "created_at"]  # fmt: skip


def _mutate(body: bytes, op: int, a: int, b: int, junk: bytes) -> bytes:
    lines = body.split(b"\n")
    i, j = a % max(len(lines), 1), b % max(len(lines), 1)
    if op == 0:  # flip a byte
        data = bytearray(body)
        if data:
            data[a % len(data)] ^= 1 + b % 255
        return bytes(data)
    if op == 1:  # cut
        return body[: a % (len(body) + 1)]
    if op == 2:  # drop a line
        return b"\n".join(lines[:i] + lines[i + 1 :])
    if op == 3:  # duplicate a line
        return b"\n".join(lines[: i + 1] + lines[i:])
    if op == 4:  # swap two lines
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if op == 5:  # a value of another type somewhere in a line
        try:
            line = orjson.loads(lines[i])
        except orjson.JSONDecodeError:
            return body
        target = line.get("message") if isinstance(line.get("message"), dict) and b % 2 else line
        target[KEYS[a % len(KEYS)]] = VALUES[b % len(VALUES)]
        lines[i] = orjson.dumps(line)
        return b"\n".join(lines)
    return body[: a % (len(body) + 1)] + junk + body[a % (len(body) + 1) :]  # splice junk


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(BODIES),
    st.lists(
        st.tuples(
            st.integers(0, 6),
            st.integers(0, 2**16),
            st.integers(0, 2**16),
            st.binary(max_size=8) | st.sampled_from([b"\n", b"\r\n", b"\xff", b"{", b"}\n"]),
        ),
        max_size=3,
    ),
    st.lists(st.integers(1, 4000), max_size=6),
)
def test_mutated_bodies_fail_only_typed_and_keep_the_invariants(
    body: bytes, mutations: list[tuple[int, int, int, bytes]], cuts: list[int]
) -> None:
    for op, a, b, junk in mutations:
        body = _mutate(body, op, a, b, junk)
    points = sorted({c % (len(body) + 1) for c in cuts})
    chunks = [body[x:y] for x, y in zip([0, *points], [*points, len(body)], strict=True)]
    events, error = decode_collect(OllamaDecoder(), chunks, framing="ndjson")
    assert error is None or isinstance(error, lb.LLMBridgeError)
    check_invariants(events, complete=error is None)

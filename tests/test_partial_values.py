"""Partial values while streaming: ``PartialObject`` events with a ``response_format`` and
``ToolCallChunk.partial_arguments`` with ``partial_tool_arguments=True``.

What a user relies on: the last partial value is the reply's value, every partial value is a
prefix-consistent shape of it (keys only appear, strings only grow, lists only get longer,
numbers never show half-written), values change only when the text did, and where the text
was split never matters."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.structured.partial_json import PartialJson

pytestmark = pytest.mark.anyio

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**9), 10**9)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(st.characters(codec="utf-8"), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
containers = st.one_of(
    st.dictionaries(st.text(max_size=6), json_values, max_size=5),
    st.lists(json_values, max_size=5),
)


def consistent(partial: Any, final: Any) -> bool:
    """Whether ``partial`` is a prefix-consistent shape of ``final``."""
    if isinstance(final, dict):
        return isinstance(partial, dict) and all(
            k in final and consistent(v, final[k]) for k, v in partial.items()
        )
    if isinstance(final, list):
        if not isinstance(partial, list) or len(partial) > len(final):
            return False
        *done, last = partial or [None]
        return all(a == b for a, b in zip(done, final, strict=False)) and (
            not partial or consistent(last, final[len(partial) - 1])
        )
    if isinstance(final, str):
        return isinstance(partial, str) and final.startswith(partial)
    return partial == final


def splits(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(value=containers, cuts=st.lists(st.integers(0, 10**6), max_size=30), indent=st.booleans())
def test_every_partial_value_is_consistent_and_the_last_is_the_whole_value(
    value: Any, cuts: list[int], indent: bool
) -> None:
    text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
    final = json.loads(text)  # floats as JSON reads them back
    partial = PartialJson()
    seen: list[Any] = []
    for piece in splits(text, cuts):
        if partial.feed(piece):
            seen.append(partial.value)
    if partial.finish():
        seen.append(partial.value)
    assert seen and seen[-1] == final
    for earlier, later in zip(seen, seen[1:], strict=False):
        assert earlier != later  # only changes are reported
        assert consistent(earlier, later)
    assert all(consistent(v, final) for v in seen)


def test_numbers_and_literals_appear_only_once_complete() -> None:
    partial = PartialJson()
    values = []
    for piece in ['{"n": 1', "2", "3", ', "ok": tr', "ue", ', "s": "ab', 'c"}']:
        if partial.feed(piece):
            values.append(partial.value)
    partial.finish()
    values.append(partial.value)
    assert {"n": 1} not in values and {"n": 12} not in values
    assert {"n": 123} in values
    assert {"n": 123, "s": "ab"} not in values  # "ok" came first, complete
    assert {"n": 123, "ok": True, "s": "ab"} in values
    assert values[-1] == {"n": 123, "ok": True, "s": "abc"}


def test_a_half_written_escape_is_left_out_of_the_string() -> None:
    partial = PartialJson()
    partial.feed('{"s": "caf\\u00')
    assert partial.value == {"s": "caf"}
    partial.feed('e9"}')
    assert partial.value == {"s": "café"}


def test_leading_prose_and_a_code_fence_are_skipped() -> None:
    partial = PartialJson()
    for piece in ["Here is the JSON you asked for:\n\n```json\n", '{"city": "Os', 'lo"}\n```\n']:
        partial.feed(piece)
    assert partial.value == {"city": "Oslo"}
    assert not partial.finish()  # already the whole value


def test_parsing_work_is_linear_in_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-parsing the whole text per delta would be quadratic: count what gets parsed."""
    from llmbridge.structured import partial_json

    parsed: list[int] = []
    parse = partial_json._partial_value
    monkeypatch.setattr(partial_json, "_partial_value", lambda t: parsed.append(len(t)) or parse(t))
    text = json.dumps({"items": [{"n": i, "s": "x" * 30} for i in range(4000)]})
    work = []
    for size in (len(text) // 2, len(text)):
        parsed.clear()
        partial = PartialJson()
        for i in range(0, size, 20):
            partial.feed(text[i : i + 20])
        work.append(sum(parsed) / size)
        assert len(parsed) > 20  # still updating as it goes
    assert work[1] <= work[0] * 1.1  # per character, no more work for twice the text


prose = st.text(st.characters(codec="utf-8", exclude_characters="{["), max_size=40)


def _final(pieces: list[str]) -> tuple[Any, list[Any]]:
    """The value after ``finish()`` and every value seen on the way."""
    partial = PartialJson()
    seen = [partial.value for piece in pieces if partial.feed(piece)]
    partial.finish()
    return partial.value, seen


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=containers,
    before=prose,
    fence=st.sampled_from(["", "```json\n", "```\r\n"]),
    after=prose,
    cuts=st.lists(st.integers(0, 10**6), max_size=30),
)
def test_prose_and_fences_around_the_value_split_anywhere(
    value: Any, before: str, fence: str, after: str, cuts: list[int]
) -> None:
    if before.lstrip()[:1] in tuple('"-0123456789'):  # a text that starts like a JSON value
        before = "Here: " + before
    text = before + fence + json.dumps(value) + ("\n```" if fence else "") + after
    final, seen = _final(splits(text, cuts))
    assert final == _final([text])[0] == value
    assert all(consistent(v, value) for v in seen)


def _reference_start(text: str) -> int | None:
    """Where the value starts, as the per-character scan before issue 49 found it."""
    stripped = text.lstrip()
    if not stripped:
        return None
    if stripped[0] in '{["-0123456789':
        return len(text) - len(stripped)
    fence = re.search(r"```[a-zA-Z0-9_-]*[ \t]*\r?\n", text)
    after = fence.end() if fence is not None else 0
    for i in range(after, len(text)):
        if text[i] in "{[":
            return i
    return None


@settings(max_examples=500)
@given(
    words=st.lists(
        st.sampled_from(["{", "[", "`", "```", "json", "\n", "\r", " ", "\t", "a", "1", "-"]),
        max_size=24,
    ),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
)
@example(words=["``", "`json\n", "a{", " ", "```", "\n", "{"], cuts=[2, 8])  # a fence split
@example(words=["```js", "on\r", "\n", "a{"], cuts=[5, 8, 9])
def test_the_start_is_found_where_the_character_scan_found_it(
    words: list[str], cuts: list[int]
) -> None:
    """Asked again as the text grows (as parses do), the C-speed search that resumes where it
    stopped gives the start the old scan of the whole text gave, every time."""
    from llmbridge.structured.partial_json import _Opening

    text = "".join(words)
    opening = _Opening()
    grown = ""
    for piece in splits(text, cuts):
        grown += piece
        found = opening.find(grown)
        assert found == _reference_start(grown)
        if found is not None:
            break


def test_prose_before_the_value_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A megabyte of prose before the ``{`` cost 7 s of Python per-character scanning, again on
    every parse: each character is now looked at once, by ``str.find``."""
    from llmbridge.structured import partial_json

    scanned: list[int] = []
    opener = partial_json._opener

    def counting(text: str, start: int) -> int:
        scanned.append(len(text) - start)
        return opener(text, start)

    monkeypatch.setattr(partial_json, "_opener", counting)
    text = "The weather, in words. " * 40_000 + WEATHER
    partial = PartialJson()
    for i in range(0, len(text), 7):
        partial.feed(text[i : i + 7])
    partial.finish()
    assert partial.value == json.loads(WEATHER)
    assert sum(scanned) <= len(text)  # was about 144 times the prose, in Python


# -- through the client ------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    obj = {"id": "c", "object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _client(body: bytes) -> lb.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"openai": {"api_key": "k"}},
    )


WEATHER = '{"city": "Oslo", "days": [{"celsius": -3.5, "sky": "snow showers"}]}'


async def test_stream_with_a_response_format_yields_partial_objects_after_their_deltas() -> None:
    body = b"".join(_chunk({"content": WEATHER[i : i + 9]}) for i in range(0, len(WEATHER), 9))
    body += _chunk({}, "stop") + b"data: [DONE]\n\n"
    events = []
    async with _client(body) as client:
        async for event in client.stream(
            "openai:gpt-4.1-mini", [lb.ChatMessage.user("x")], response_format={"type": "object"}
        ):
            events.append(event)
    kinds = [e.type for e in events]
    partials = [e.value for e in events if isinstance(e, lb.PartialObject)]
    assert partials[0] == {}
    assert {"city": "Osl"} not in partials or {"city": "Oslo"} in partials
    assert partials[-1] == json.loads(WEATHER)
    assert kinds.index("partial_object") > kinds.index("text_delta")
    assert kinds[-1] == "finish"
    assert all(kinds[i - 1] == "text_delta" for i, k in enumerate(kinds) if k == "partial_object")
    # the text is untouched, and complete() is unaffected by the extra events
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == WEATHER
    assert lb.accumulate(events).text == WEATHER


async def test_no_partial_events_without_a_response_format() -> None:
    body = _chunk({"content": WEATHER}) + _chunk({}, "stop") + b"data: [DONE]\n\n"
    async with _client(body) as client:
        kinds = [
            e.type async for e in client.stream("openai:gpt-4.1-mini", [lb.ChatMessage.user("x")])
        ]
    assert "partial_object" not in kinds


def _call_body(arguments: str, step: int) -> bytes:
    first = {"index": 0, "id": "call_1", "type": "function"}
    out = [_chunk({"tool_calls": [{**first, "function": {"name": "save", "arguments": ""}}]})]
    for i in range(0, len(arguments), step):
        piece = {"index": 0, "function": {"arguments": arguments[i : i + step]}}
        out.append(_chunk({"tool_calls": [piece]}))
    return b"".join([*out, _chunk({}, "tool_calls"), b"data: [DONE]\n\n"])


@pytest.mark.parametrize("partial", [True, False])
async def test_partial_tool_arguments_fill_chunks_only_when_asked(partial: bool) -> None:
    arguments = '{"path": "notes/today.md", "lines": ["buy milk", "call Ana"]}'
    tool = lb.ToolSpec(name="save", description="Save", parameters={"type": "object"})
    async with _client(_call_body(arguments, 6)) as client:
        events = [
            e
            async for e in client.stream(
                "openai:gpt-4.1-mini",
                [lb.ChatMessage.user("x")],
                tools=[tool],
                partial_tool_arguments=partial,
            )
        ]
    chunks = [e for e in events if isinstance(e, lb.ToolCallChunk)]
    end = next(e for e in events if isinstance(e, lb.ToolCallEnd))
    assert "".join(c.arguments_delta for c in chunks) == end.raw_arguments == arguments
    values = [c.partial_arguments for c in chunks]
    if not partial:
        assert values == [None] * len(chunks)
        return
    assert all(isinstance(v, dict) and consistent(v, end.arguments) for v in values)
    assert {"path": "notes/tod"} in values or {"path": "notes/today.md"} in values
    assert values[-1] == end.arguments  # short arguments: parsed on every chunk


async def test_complete_with_a_response_format_skips_partial_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_partials(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("complete() computed partial values nobody sees")

    monkeypatch.setattr("llmbridge.client.async_client.with_partials", no_partials)
    body = _chunk({"content": WEATHER}) + _chunk({}, "stop") + b"data: [DONE]\n\n"
    async with _client(body) as client:
        response = await client.complete(
            "openai:gpt-4.1-mini", [lb.ChatMessage.user("x")], response_format={"type": "object"}
        )
    assert response.parsed == json.loads(WEATHER)

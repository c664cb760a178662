"""The NDJSON framing (``llmbridge.stream.ndjson``): lines split anywhere, UTF-8 split across
chunks, blank lines and CRLF, the unterminated last line, the byte bound, bad UTF-8 (one line
at a time, checked as the decoder parses it: the good lines before a bad one reach the partial,
issue 49 item 16)."""

from __future__ import annotations

import anyio
import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.frames import Line
from llmbridge.providers.ollama_native import OllamaDecoder
from llmbridge.stream.ndjson import iter_ndjson
from llmbridge.testing import decode_collect

BODY = '{"a":1}\n\n{"b":"é€😀"}\r\n{"c":3}\n'.encode()


def test_lines_are_frames_whatever_the_chunks() -> None:
    want = [Line(b'{"a":1}'), Line('{"b":"é€😀"}'.encode()), Line(b'{"c":3}')]
    assert list(iter_ndjson(BODY)) == want
    assert list(iter_ndjson([BODY[i : i + 1] for i in range(len(BODY))])) == want
    for cut in range(1, len(BODY)):
        assert list(iter_ndjson([BODY[:cut], BODY[cut:]])) == want


def test_a_last_line_without_its_line_end_is_marked() -> None:
    assert list(iter_ndjson(b'{"a":1}\n{"b":2}')) == [
        Line(b'{"a":1}'),
        Line(b'{"b":2}', terminated=False),
    ]
    assert list(iter_ndjson(b'{"a":1}\n   ')) == [Line(b'{"a":1}')]


def test_a_line_longer_than_the_bound_stops_reading() -> None:
    body = [b'{"a":1}\n', b"x" * 600, b"y" * 600]
    frames = iter_ndjson(body, limit=1000)
    assert next(frames) == Line(b'{"a":1}')
    with pytest.raises(lb.MalformedStreamError, match="max_event_bytes"):
        next(frames)


def test_lines_before_an_overlong_rest_come_out_first() -> None:
    frames = iter_ndjson([b'{"a":1}\n' + b"z" * 2000], limit=1000)
    assert next(frames) == Line(b'{"a":1}')
    with pytest.raises(lb.MalformedStreamError):
        next(frames)


def _decoded(body: bytes) -> tuple[list[lb.StreamEvent], lb.LLMBridgeError | None]:
    return decode_collect(OllamaDecoder(), [body], framing="ndjson")


def test_bytes_that_are_not_utf8_are_malformed() -> None:
    assert list(iter_ndjson(b'{"a":"\xff"}\n')) == [Line(b'{"a":"\xff"}')]  # bytes, as sent
    _, error = _decoded(b'{"a":"\xff"}\n')
    assert isinstance(error, lb.MalformedStreamError) and "UTF-8" in error.message


def test_a_body_cut_inside_a_character_is_malformed() -> None:
    _, error = _decoded(b'{"a":"\xc3')
    assert isinstance(error, lb.MalformedStreamError) and "UTF-8" in error.message


# -- through the transport: what a bad line leaves in the partial ---------------------------


def _line(**fields: object) -> bytes:
    return orjson.dumps({"model": "m", "created_at": "2026-01-02T03:04:05Z", **fields}) + b"\n"


@pytest.mark.anyio
async def test_a_line_that_is_not_utf8_keeps_the_good_lines_before_it_in_the_partial() -> None:
    good = _line(message={"role": "assistant", "content": "kept "}, done=False)
    bad = b'{"message":{"role":"assistant","content":"\xff"}}\n'
    one_chunk = good + good + bad + good  # the good lines and the bad one in one read

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "application/x-ndjson"}
        return httpx.Response(200, headers=headers, content=one_chunk)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = lb.Client(http_client=http, providers={"ollama-native": {"base_url": "http://o"}})
        with pytest.raises(lb.MalformedStreamError, match="UTF-8") as info:
            await client.complete("ollama-native:m", [lb.ChatMessage.user("hi")])
    assert info.value.partial is not None and info.value.partial.text == "kept kept "


def test_a_bad_line_fails_after_the_lines_before_it_in_the_same_chunk() -> None:
    first = _line(message={"role": "assistant", "content": "a"}, done=False)
    events, error = _decoded(first + b'{"b":"\xff"}\n{"c":3}\n')
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["a"]
    assert isinstance(error, lb.MalformedStreamError) and "UTF-8" in error.message


_pieces = st.one_of(
    st.binary(max_size=12),
    st.sampled_from([b"\n", b"\r\n", b"{}", b'{"error":"x"}', b'{"done":true}', b"\xff", b"\xc3"]),
    st.builds(lambda t: orjson.dumps({"message": {"content": t}}), st.text(max_size=5)),
)


@settings(max_examples=300, deadline=None)
@given(body=st.lists(_pieces, max_size=12).map(b"".join), cut=st.integers(0, 80))
def test_random_bodies_let_only_llmbridge_errors_out(body: bytes, cut: int) -> None:
    decoder = OllamaDecoder()
    try:
        for line in iter_ndjson([body[:cut], body[cut:]], limit=64):
            decoder.feed_frame(line)
        decoder.close()
    except lb.LLMBridgeError:
        pass


@pytest.mark.anyio
async def test_a_piece_of_many_tiny_lines_lets_the_loop_turn_between_batches() -> None:
    from tests.heartbeat import Heartbeat

    done = _line(message={"role": "assistant", "content": ""}, done=True, done_reason="stop")
    one_piece = _nd_text("a") + b"{}\n" * 20_000 + done  # 60 KB: one piece, 20,002 frames

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "application/x-ndjson"}, content=one_piece
        )

    heartbeat = Heartbeat()
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(heartbeat.spin)
        client = lb.Client(http_client=http, providers={"ollama-native": {"base_url": "http://o"}})
        turns = -1
        async for ev in client.stream("ollama-native:m", [lb.ChatMessage.user("hi")]):
            if isinstance(ev, lb.TextDelta):
                turns = heartbeat.turns
        turns = heartbeat.turns - turns
        tg.cancel_scope.cancel()
    assert turns >= 20_000 // 512 // 2, f"the loop turned {turns} times in 20,000 lines"


def _nd_text(text: str) -> bytes:
    return _line(message={"role": "assistant", "content": text}, done=False)

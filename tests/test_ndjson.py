"""The NDJSON framing (``llmbridge.stream.ndjson``): lines split anywhere, UTF-8 split across
chunks, blank lines and CRLF, the unterminated last line, the byte bound, bad UTF-8."""

from __future__ import annotations

import pytest

import llmbridge as lb
from llmbridge.stream.ndjson import UNTERMINATED, iter_ndjson

BODY = '{"a":1}\n\n{"b":"é€😀"}\r\n{"c":3}\n'.encode()


def test_lines_are_frames_whatever_the_chunks() -> None:
    want = [("", '{"a":1}'), ("", '{"b":"é€😀"}'), ("", '{"c":3}')]
    assert list(iter_ndjson(BODY)) == want
    assert list(iter_ndjson([BODY[i : i + 1] for i in range(len(BODY))])) == want
    for cut in range(1, len(BODY)):
        assert list(iter_ndjson([BODY[:cut], BODY[cut:]])) == want


def test_a_last_line_without_its_line_end_is_marked() -> None:
    assert list(iter_ndjson(b'{"a":1}\n{"b":2}')) == [("", '{"a":1}'), (UNTERMINATED, '{"b":2}')]
    assert list(iter_ndjson(b'{"a":1}\n   ')) == [("", '{"a":1}')]


def test_a_line_longer_than_the_bound_stops_reading() -> None:
    body = [b'{"a":1}\n', b"x" * 600, b"y" * 600]
    frames = iter_ndjson(body, limit=1000)
    assert next(frames) == ("", '{"a":1}')
    with pytest.raises(lb.MalformedStreamError, match="max_event_bytes"):
        next(frames)


def test_lines_before_an_overlong_rest_come_out_first() -> None:
    frames = iter_ndjson([b'{"a":1}\n' + b"z" * 2000], limit=1000)
    assert next(frames) == ("", '{"a":1}')
    with pytest.raises(lb.MalformedStreamError):
        next(frames)


def test_bytes_that_are_not_utf8_are_malformed() -> None:
    with pytest.raises(lb.MalformedStreamError, match="UTF-8"):
        list(iter_ndjson(b'{"a":"\xff"}\n'))


def test_a_body_cut_inside_a_character_is_malformed() -> None:
    with pytest.raises(lb.MalformedStreamError):
        list(iter_ndjson(b'{"a":"\xc3'))

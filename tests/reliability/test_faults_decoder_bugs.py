"""Regression tests for decoder bugs the fuzzers found (minimal reproductions).

The expected behaviour: the event invariants hold whatever the provider sends — a duplicated or
out-of-order event is ignored or raises ``MalformedStreamError``; it never yields a second
``ToolCallStart`` for one id or a ``Finish`` with a call still open. (They were strict xfails
until the openai-responses and anthropic decoders were fixed.)
"""

from __future__ import annotations

import llmbridge as lb
from llmbridge.testing import check_invariants, decode_collect
from tests.reliability.mutations import FIXTURES, load_body_fixture, new_decoder


def _events(body: bytes) -> list[bytes]:
    return body.split(b"\n\n")


def _decode_and_check(fixture: str, body: bytes) -> None:
    fx = load_body_fixture(FIXTURES / fixture)
    events, error = decode_collect(new_decoder(fx), [body])
    if error is not None:
        assert isinstance(error, lb.MalformedStreamError), repr(error)
    check_invariants(events, complete=error is None)


def _body(fixture: str) -> bytes:
    return (FIXTURES / fixture / "response.sse").read_bytes()


def test_responses_duplicated_output_item_added() -> None:
    parts = _events(_body("openai-responses/one_call"))
    i = next(n for n, e in enumerate(parts) if e.startswith(b"event: response.output_item.added"))
    body = b"\n\n".join([*parts[: i + 1], parts[i], *parts[i + 1 :]])
    _decode_and_check("openai-responses/one_call", body)


def test_responses_output_item_added_after_its_done() -> None:
    parts = _events(_body("openai-responses/one_call"))
    added = next(n for n, e in enumerate(parts) if b"response.output_item.added" in e[:40])
    done = next(n for n, e in enumerate(parts) if b"response.output_item.done" in e[:40])
    parts[added], parts[done] = parts[done], parts[added]
    _decode_and_check("openai-responses/one_call", b"\n\n".join(parts))


def test_anthropic_block_start_after_message_stop() -> None:
    parts = _events(_body("anthropic/no_input_tool"))
    start = next(e for e in parts if e.startswith(b"event: content_block_start"))
    stop = next(n for n, e in enumerate(parts) if e.startswith(b"event: message_stop"))
    body = b"\n\n".join([*parts[: stop + 1], start, *parts[stop + 1 :]])
    _decode_and_check("anthropic/no_input_tool", body)

"""Tool-argument integers beyond 64 bits stay exact (issue 34, item 9; pure decoding).

orjson reads ``123456789012345678901234`` as ``1.2345678901234569e+23``; the arguments text
of a call is read again by the standard library when it holds such a run of digits. Gemini is
the documented exception: its ``functionCall.args`` is a protobuf ``Struct`` (JSON numbers are
doubles there), so the float is what the API meant. The exact value also goes back out in the
next request's history.
"""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers.base import ProviderConfig
from llmbridge.providers.registry import create_provider
from llmbridge.request import ChatRequest
from llmbridge.stream.bounded import iter_sse
from llmbridge.tool_calls import parse_arguments
from tests.reliability.wire_builders import BUILDERS

BIG = 123456789012345678901234
PROVIDER = {"chat": "openai", "anthropic": "anthropic", "responses": "openai-responses"}


def _decode(provider: str, body: bytes) -> list[lb.StreamEvent]:
    config = ProviderConfig.from_mapping({"api_key": "test-key"})
    request = ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    decoder = create_provider(provider, config).new_decoder(request)
    events: list[lb.StreamEvent] = []
    for event, data in iter_sse(body):
        events += decoder.feed(event, data)
    return events + decoder.close()


def _with_big_argument(body: bytes) -> bytes:
    big = str(BIG).encode()
    return body.replace(b'"0}"', b'"' + big + b'}"').replace(
        b'{\\"i\\": 0}', b'{\\"i\\": ' + big + b"}"
    )


@pytest.mark.parametrize("wire", sorted(PROVIDER))
def test_big_integers_in_streamed_arguments_stay_exact(wire: str) -> None:
    events = _decode(PROVIDER[wire], _with_big_argument(BUILDERS[wire](1)))
    (end,) = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert end.raw_arguments == f'{{"i": {BIG}}}'
    assert end.arguments == {"i": BIG}
    assert type(end.arguments["i"]) is int


def test_gemini_arguments_are_doubles_as_the_api_defines() -> None:
    body = BUILDERS["gemini"](1).replace(
        b'"args":{"i":0}', b'"args":{"i":' + str(BIG).encode() + b"}"
    )
    events = _decode("gemini", body)
    (end,) = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert end.arguments == {"i": float(BIG)}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (f'{{"a": {BIG}}}', {"a": BIG}),
        (f'{{"a": -{BIG}, "b": [18446744073709551616]}}', {"a": -BIG, "b": [2**64]}),
        ('{"a": -9223372036854775809}', {"a": -(2**63) - 1}),
        ('{"a": 0.1234567890123456789012, "b": 1e30}', {"a": 0.1234567890123456789012, "b": 1e30}),
        ('{"phone": "12345678901234567890"}', {"phone": "12345678901234567890"}),
        ('{"a": 12345}', {"a": 12345}),
    ],
)
def test_parse_arguments_is_exact_and_otherwise_unchanged(raw: str, expected: Any) -> None:
    args, error = parse_arguments(raw)
    assert error is None and args == expected
    assert [type(v) for v in args.values()] == [type(v) for v in expected.values()]


def test_non_json_constants_stay_errors_on_the_exact_path() -> None:
    args, error = parse_arguments('{"a": NaN, "b": 12345678901234567890123}')
    assert args == {} and error is not None


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_exact_arguments_go_back_out_in_history(provider: str) -> None:
    call = lb.ToolCallPart(id="call_1", name="lookup", arguments={"i": BIG})
    messages = [
        lb.ChatMessage.user("hi"),
        lb.ChatMessage(role="assistant", content=[call]),
        lb.ChatMessage.tool_result("call_1", "ok"),
    ]
    config = ProviderConfig.from_mapping({"api_key": "test-key"})
    request = ChatRequest(model="m", messages=messages)
    body = create_provider(provider, config).build_request(request).body_bytes()
    assert str(BIG).encode() in body

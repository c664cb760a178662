"""The Converse decoder on what a user would notice: every split gives the same events,
exception frames are typed errors with the events before them kept, cut streams are
truncations, and the error table maps Bedrock's words."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.errors import (
    AuthenticationError,
    ContextLengthError,
    InvalidRequestError,
    MalformedStreamError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    StreamTruncatedError,
)
from llmbridge.events import (
    Citation,
    Finish,
    ReasoningDelta,
    StreamStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)
from llmbridge.providers.bedrock import BedrockDecoder
from llmbridge.providers.bedrock.errors import map_http_error
from tests.providers.bedrock.bedrock_helpers import check_invariants, decode
from tests.providers.bedrock.frames import converse, exception, exception_message, message

STREAM = converse(
    ("messageStart", {"role": "assistant", "p": "abc"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Hm."}}}),
    (
        "contentBlockDelta",
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2ln"}}},
    ),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Née à "}}),
    (
        "contentBlockDelta",
        {
            "contentBlockIndex": 1,
            "delta": {
                "citation": {
                    "title": "Wiki",
                    "location": {"web": {"url": "https://w.example/p", "domain": "w.example"}},
                }
            },
        },
    ),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Paris."}}),
    ("contentBlockStop", {"contentBlockIndex": 1}),
    (
        "contentBlockStart",
        {
            "contentBlockIndex": 2,
            "start": {"toolUse": {"toolUseId": "tooluse_a", "name": "get_weather"}},
        },
    ),
    ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"ci'}}}),
    (
        "contentBlockDelta",
        {"contentBlockIndex": 2, "delta": {"toolUse": {"input": 'ty":"Paris"}'}}},
    ),
    ("contentBlockStop", {"contentBlockIndex": 2}),
    (
        "contentBlockStart",
        {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": "tooluse_b", "name": "now"}}},
    ),
    ("contentBlockStop", {"contentBlockIndex": 3}),
    ("messageStop", {"stopReason": "tool_use", "additionalModelResponseFields": {"x": 1}}),
    (
        "metadata",
        {
            "usage": {
                "inputTokens": 10,
                "outputTokens": 5,
                "totalTokens": 20,
                "cacheReadInputTokens": 4,
                "cacheWriteInputTokens": 1,
            },
            "metrics": {"latencyMs": 9},
        },
    ),
)


def test_a_full_stream_decodes_with_every_kind_of_block() -> None:
    events = decode(STREAM, model="m")
    check_invariants(events)
    start = events[0]  # (the request's warnings are the attempt loop's to add)
    assert isinstance(start, StreamStart) and start.model == "m" and start.warnings == []
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert [(r.text, r.signature) for r in reasoning] == [("Hm.", None), ("", "c2ln")]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Née à Paris."
    assert [c.url for c in events if isinstance(c, Citation)] == ["https://w.example/p"]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.name, e.arguments, e.raw_arguments) for e in ends] == [
        ("tooluse_a", "get_weather", {"city": "Paris"}, '{"city":"Paris"}'),
        ("tooluse_b", "now", {}, ""),
    ]
    finish = events[-1]
    assert (
        isinstance(finish, Finish)
        and finish.reason == "tool_calls"
        and finish.raw_reason == "tool_use"
    )
    assert finish.usage is not None
    assert (
        finish.usage.input_tokens,
        finish.usage.cached_input_tokens,
        finish.usage.cache_write_tokens,
    ) == (15, 4, 1)
    data = (finish.provider_data or {})["bedrock"]
    assert data["metrics"] == {"latencyMs": 9} and data["additionalModelResponseFields"] == {"x": 1}
    assert data["citations"][0]["index"] == 1


def _comparable(events: list[Any]) -> list[Any]:
    return [repr(e) for e in events]


def test_every_split_point_gives_the_same_events() -> None:
    whole = _comparable(decode(STREAM))
    for cut in range(0, len(STREAM) + 1, 7):
        assert _comparable(decode([STREAM[:cut], STREAM[cut:]])) == whole
    assert _comparable(decode([STREAM[i : i + 1] for i in range(len(STREAM))])) == whole


@pytest.mark.parametrize(
    ("kind", "cls", "retryable"),
    [
        ("throttlingException", RateLimitError, True),
        ("modelStreamErrorException", ServerError, True),
        ("internalServerException", ServerError, True),
        ("serviceUnavailableException", ServerError, True),
        ("validationException", InvalidRequestError, False),
    ],
)
def test_exception_frames_are_typed_errors_after_the_events_before(
    kind: str, cls: type[Exception], retryable: bool
) -> None:
    decoder = BedrockDecoder()
    events: list[Any] = []
    body = converse(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "half"}}),
    ) + exception(kind, "it went wrong")
    from llmbridge.stream.aws_eventstream import iter_eventstream

    with pytest.raises(cls) as info:
        for frame in iter_eventstream(body):
            events.extend(decoder.feed_frame(frame))
    assert type(info.value) is cls and info.value.retryable is retryable
    assert info.value.provider_message == "it went wrong" and info.value.error_type == kind
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["half"]
    with pytest.raises(MalformedStreamError, match="already failed"):
        decoder.feed_frame(message("metadata", {}))


def test_a_validation_exception_saying_the_prompt_is_too_long_is_context_length() -> None:
    decoder = BedrockDecoder()
    with pytest.raises(ContextLengthError):
        decoder.feed_frame(
            exception_message(
                "validationException", '{"message":"Input is too long for requested model."}'
            )
        )


def test_a_stream_cut_before_message_stop_is_truncated() -> None:
    decoder = BedrockDecoder()
    decoder.feed_frame(message("messageStart", '{"role":"assistant"}'))
    decoder.feed_frame(message("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"text":"x"}}'))
    with pytest.raises(StreamTruncatedError, match="messageStop"):
        decoder.close()
    with pytest.raises(StreamTruncatedError, match="messageStart"):
        BedrockDecoder().close()


def test_a_stream_without_metadata_still_finishes_without_usage() -> None:
    decoder = BedrockDecoder()
    out = decoder.feed_frame(message("messageStart", '{"role":"assistant"}'))
    out += decoder.feed_frame(message("messageStop", '{"stopReason":"max_tokens"}'))
    out += decoder.close()
    assert isinstance(out[-1], Finish) and out[-1].reason == "length" and out[-1].usage is None


def test_unknown_events_and_members_are_skipped_and_junk_is_malformed() -> None:
    decoder = BedrockDecoder()
    assert isinstance(
        decoder.feed_frame(message("messageStart", '{"role":"assistant"}'))[0], StreamStart
    )
    assert decoder.feed_frame(message("somethingNew", '{"a":1}')) == []
    assert (
        decoder.feed_frame(
            message("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"video":{}}}')
        )
        == []
    )
    with pytest.raises(MalformedStreamError, match="non-JSON"):
        decoder.feed_frame(message("contentBlockDelta", "not json"))


def test_a_tool_call_left_open_ends_at_message_stop() -> None:
    decoder = BedrockDecoder()
    out = decoder.feed_frame(message("messageStart", '{"role":"assistant"}'))
    out += decoder.feed_frame(
        message(
            "contentBlockStart",
            '{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}',
        )
    )
    out += decoder.feed_frame(
        message("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}')
    )
    out += decoder.feed_frame(message("messageStop", '{"stopReason":"tool_use"}'))
    out += decoder.close()
    assert [type(e) for e in out] == [StreamStart, ToolCallStart, type(out[2]), ToolCallEnd, Finish]


@pytest.mark.parametrize(
    ("status", "error_type", "message", "cls"),
    [
        (
            429,
            "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "Too many requests",
            RateLimitError,
        ),
        (400, "ServiceQuotaExceededException", "quota", RateLimitError),
        (
            403,
            "AccessDeniedException:http://internal.amazon.com/",
            "You don't have access to the model",
            PermissionDeniedError,
        ),
        (
            403,
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
            AuthenticationError,
        ),
        (
            403,
            "InvalidSignatureException",
            "The request signature we calculated does not match",
            AuthenticationError,
        ),
        (404, "ResourceNotFoundException", "Model not found", NotFoundError),
        (
            400,
            "ValidationException",
            "The provided model identifier is invalid.",
            InvalidRequestError,
        ),
        (
            400,
            "ValidationException",
            "prompt is too long: 210000 tokens > 200000 maximum",
            ContextLengthError,
        ),
        (
            400,
            "ValidationException",
            "Input Tokens Exceeded: Number of input tokens exceeds maximum length",
            ContextLengthError,
        ),
        (424, "ModelErrorException", "model failed", ServerError),
        (503, "ServiceUnavailableException", "down", ServerError),
        (500, None, "boom", ServerError),
    ],
)
def test_http_errors_map_through_the_bedrock_table(
    status: int, error_type: str | None, message: str, cls: type[Exception]
) -> None:
    headers = {"x-amzn-requestid": "req-1", "retry-after": "2"}
    if error_type:
        headers["x-amzn-errortype"] = error_type
    error = map_http_error(
        provider="bedrock",
        status=status,
        headers=headers,
        body=b'{"message":"' + message.encode() + b'"}',
    )
    assert type(error) is cls
    assert error.request_id == "req-1" and error.provider_message == message
    if isinstance(error, RateLimitError | ServerError):
        assert error.retry_after == 2.0


def test_an_html_error_page_keeps_its_status_and_a_snippet() -> None:
    error = map_http_error(
        provider="bedrock", status=502, headers={}, body=b"<html><body>Bad Gateway</body></html>"
    )
    assert isinstance(error, ServerError) and "Bad Gateway" in error.message
    typed = map_http_error(
        provider="bedrock",
        status=400,
        headers={},
        body=b'{"__type":"com.amazon#ValidationException","message":"bad"}',
    )
    assert type(typed) is InvalidRequestError and typed.error_type == "ValidationException"

"""Write ``fixtures/anthropic-bedrock/<scenario>/`` (run once, on purpose: ``python -m
tests.providers.anthropic_clouds.make_fixtures``). No Bedrock here: the bodies follow AWS's
documented ``InvokeModelWithResponseStream`` wire format — one ``chunk`` event frame per
Anthropic streaming event, ``{"bytes": <base64 event JSON>, "p": <padding>}``, the last
(``message_stop``) carrying ``amazon-bedrock-invocationMetrics`` — with each Anthropic event
built and serialized by the ``anthropic`` SDK's own types, and framed byte-exact by
``tests/providers/bedrock/frames.py`` (botocore reads them back, CRCs checked). Written by us,
so a clone without ``../shared/corpus`` still checks what its recordings check.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
from anthropic.types import (
    InputJSONDelta,
    Message,
    MessageDeltaUsage,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
    TextBlock,
    TextDelta,
    ToolUseBlock,
    Usage,
)
from anthropic.types.raw_message_delta_event import Delta

from llmbridge.types import ToolSpec
from tests.providers.bedrock.frames import event
from tests.providers.fixture_writer import write_scenarios

MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
CONFIG = {"region": "us-east-1"}
HEADERS = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "<redacted>"}
PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
WEATHER = ToolSpec.from_json_schema(
    "get_weather",
    "Current weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _body(events: list[Any], metrics: dict[str, int]) -> bytes:
    """The frames of one response: the SDK-serialized events, AWS's metrics on the last."""
    out = b""
    for i, ev in enumerate(events):
        payload = ev.model_dump(mode="json", exclude_none=True)
        if i == len(events) - 1:
            payload["amazon-bedrock-invocationMetrics"] = metrics
        data = base64.b64encode(orjson.dumps(payload)).decode()
        out += event("chunk", {"bytes": data, "p": PAD[: 3 + (i * 7) % 50]})
    return out


def _start(usage: Usage) -> RawMessageStartEvent:
    message = Message(id="msg_bdrk_01", type="message", role="assistant", model=MODEL,
                      content=[], stop_reason=None, stop_sequence=None, usage=usage)  # fmt: skip
    return RawMessageStartEvent(type="message_start", message=message)


def _end(stop: str, output_tokens: int) -> list[Any]:
    delta = Delta(stop_reason=stop, stop_sequence=None)  # type: ignore[arg-type]
    usage = MessageDeltaUsage(output_tokens=output_tokens)
    return [
        RawMessageDeltaEvent(type="message_delta", delta=delta, usage=usage),
        RawMessageStopEvent(type="message_stop"),
    ]


def _text(index: int, pieces: list[str]) -> list[Any]:
    block = TextBlock(type="text", text="")
    return [
        RawContentBlockStartEvent(type="content_block_start", index=index, content_block=block),
        *(
            RawContentBlockDeltaEvent(type="content_block_delta", index=index,
                                      delta=TextDelta(type="text_delta", text=p))
            for p in pieces
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=index),
    ]  # fmt: skip


def _tool(index: int, pieces: list[str]) -> list[Any]:
    block = ToolUseBlock(type="tool_use", id="toolu_bdrk_01", name="get_weather", input={})
    return [
        RawContentBlockStartEvent(type="content_block_start", index=index, content_block=block),
        *(
            RawContentBlockDeltaEvent(type="content_block_delta", index=index,
                                      delta=InputJSONDelta(type="input_json_delta", partial_json=p))
            for p in pieces
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=index),
    ]  # fmt: skip


CACHED = Usage(input_tokens=14, output_tokens=1, cache_read_input_tokens=2048,
               cache_creation_input_tokens=96)  # fmt: skip
SCENARIOS: dict[str, dict[str, Any]] = {
    "invocation_metrics": {
        "request": {"messages": [{"role": "user", "content": "Capital of France?"}],
                    "max_tokens": 64},
        "body": _body(
            [_start(CACHED), *_text(0, ["The capital", " of France", " is Paris."]),
             *_end("end_turn", 9)],
            {"inputTokenCount": 2158, "outputTokenCount": 9, "invocationLatency": 412,
             "firstByteLatency": 201, "cacheReadInputTokenCount": 2048,
             "cacheWriteInputTokenCount": 96},
        ),
    },
    "tool_use_metrics": {
        "request": {"messages": [{"role": "user", "content": "Weather in Paris?"}],
                    "max_tokens": 128, "tools": [WEATHER]},
        "body": _body(
            [_start(Usage(input_tokens=380, output_tokens=2)), *_text(0, ["Let me check."]),
             *_tool(1, ["", '{"city"', ': "Par', 'is"}']), *_end("tool_use", 41)],
            {"inputTokenCount": 380, "outputTokenCount": 41, "invocationLatency": 958,
             "firstByteLatency": 377},
        ),
    },
}  # fmt: skip


if __name__ == "__main__":
    write_scenarios(
        SCENARIOS, provider_name="anthropic-bedrock", model=MODEL, headers=HEADERS, config=CONFIG
    )

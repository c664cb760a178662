"""Random streams (``streams.py``) read by the google-genai SDK's own Interactions streaming
code (``client.interactions.create(stream=True)`` on a ``MockTransport``) and by us, on the same
bytes: our text, thoughts, signatures, calls, usage and status equal the fold of its typed
events (the SDK has no accumulator; ``_sdk_fold`` is the plain fold of its events)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
from hypothesis import HealthCheck, given, settings

from llmbridge.events import Finish
from llmbridge.providers.gemini_interactions import InteractionsDecoder
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect
from tests.providers.interactions.streams import sdk_streams, sse

PROVIDER = "gemini-interactions"


def _sdk_events(body: bytes) -> list[Any]:
    from google import genai
    from google.genai import types

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    client = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_client=http))
    return list(client.interactions.create(model="gemini-3-flash-preview", input="hi", stream=True))


def _sdk_fold(events: list[Any]) -> dict[str, Any]:
    text, thoughts, signatures = [], [], []
    calls: dict[int, dict[str, Any]] = {}
    status = usage = None
    for event in events:
        kind = event.event_type
        if kind == "step.start" and event.step.type == "function_call":
            calls[event.index] = {"id": event.step.id, "name": event.step.name, "args": []}
        elif kind == "step.delta":
            delta = event.delta
            if delta.type == "text":
                text.append(delta.text)
            elif delta.type == "thought_summary":
                thoughts.append(delta.content.text)
            elif delta.type == "thought_signature" and delta.signature:
                signatures.append(delta.signature)
            elif delta.type == "arguments_delta":
                calls[event.index]["args"].append(delta.arguments)
        elif kind == "interaction.completed":
            status, usage = event.interaction.status, event.interaction.usage
    return {
        "text": "".join(text),
        "reasoning": "".join(thoughts),
        "signatures": signatures,
        "calls": [
            (c["id"], c["name"], orjson.loads("".join(c["args"]) or "{}")) for c in calls.values()
        ],
        "status": status,
        "output": usage.total_output_tokens + usage.total_thought_tokens,
        "input": usage.total_input_tokens,
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=sdk_streams())
def test_our_reading_equals_the_sdks_on_the_same_bytes(stream: list[dict[str, Any]]) -> None:
    body = sse(stream)
    want = _sdk_fold(_sdk_events(body))
    events, error = decode_collect(InteractionsDecoder(provider=PROVIDER), [body])
    assert error is None
    got = accumulate(events, provider=PROVIDER)
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.usage is not None
    assert {
        "text": got.text,
        "reasoning": got.reasoning,
        "signatures": [p.signature for p in got.message.content if getattr(p, "signature", None)],
        "calls": [(c.id, c.name, c.arguments) for c in got.tool_calls],
        "status": finish.raw_reason,
        "output": finish.usage.output_tokens,
        "input": finish.usage.input_tokens,
    } == want

"""Cross-check with the official ``openai`` SDK (dev-only reference).

Every event of every fixture must validate against the SDK's ``ResponseStreamEvent`` type (so
the fixtures are wire-valid), and the SDK's own stream accumulator, fed the same bytes, must
agree with ``llmbridge.response.accumulate`` on text, tool calls, finish and usage.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect, iter_sse, load_fixture
from llmbridge.testing.prepared import prepared_decoder

openai = pytest.importorskip("openai")
from openai.types.responses import ResponseStreamEvent  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "openai-responses"
ALL = sorted(p.parent for p in FIXTURES.glob("*/input.json"))
IDS = [p.name for p in ALL]
# The union's discriminator is the SDK's own (PropertyInfo), not pydantic's: resolve by type.
_EVENT_CLASSES = {
    cls.model_fields["type"].annotation.__args__[0]: cls
    for cls in typing.get_args(typing.get_args(ResponseStreamEvent)[0])
}


def _payloads(body: bytes) -> list[dict[str, Any]]:
    frames = list(iter_sse(body))
    return [orjson.loads(data) for _, data in frames if data and data != "[DONE]"]


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_fixture_events_are_valid_sdk_events(path: Path) -> None:
    for i, payload in enumerate(_payloads(load_fixture(path).body)):
        # OpenRouter (and older recordings) send no sequence_number, which the SDK requires.
        payload.setdefault("sequence_number", i)
        cls = _EVENT_CLASSES[payload["type"]]
        cls.model_validate(payload, strict=False)
        # no extra fields: the SDK models allow extras, so compare the round trip instead
        dumped = cls.model_validate(payload).model_dump(exclude_unset=True, mode="json")
        assert dumped == payload


def _client(body: bytes, headers: dict[str, str]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers, content=body)

    return openai.OpenAI(
        api_key="sk-fake", http_client=httpx.Client(transport=httpx.MockTransport(handler))
    )


def _sdk_events(body: bytes, headers: dict[str, str]) -> Any:
    with _client(body, headers).responses.stream(model="m", input="x") as stream:
        yield from stream


def _sdk_final(body: bytes, headers: dict[str, str]) -> Any:
    with _client(body, headers).responses.stream(model="m", input="x") as stream:
        terminal = None
        for event in stream:
            if event.type in ("response.completed", "response.incomplete"):
                terminal = event.response
        if terminal is not None and terminal.status == "incomplete":
            # get_final_response() insists on response.completed; the incomplete event's
            # response is the SDK's own parse of the final state.
            return terminal
        return stream.get_final_response()


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_sdk_accumulation_agrees(path: Path) -> None:
    fx = load_fixture(path)
    provider = create_provider(
        "openai-responses", ProviderConfig.from_mapping({**fx.provider_config, "api_key": "k"})
    )
    events, error = decode_collect(prepared_decoder(provider, fx.request)(), [fx.body])
    if error is not None:
        # The SDK does not raise: it yields the ``error`` event (then ``response.failed``) and
        # only get_final_response() fails, untyped. Ours raises a typed APIError carrying the
        # same message, after the events that came before.
        sdk_events = list(_sdk_events(fx.body, fx.headers))
        sdk_errors = [e for e in sdk_events if e.type == "error"]
        assert sdk_errors and sdk_errors[0].message == error.message
        sdk_text = "".join(e.delta for e in sdk_events if e.type == "response.output_text.delta")
        assert accumulate(events).text == sdk_text
        return
    ours = accumulate(events, provider="openai-responses")
    final = _sdk_final(fx.body, fx.headers)

    texts = [
        c.text if c.type == "output_text" else c.refusal
        for item in final.output
        if item.type == "message"
        for c in item.content
    ]
    assert ours.text == "".join(texts)
    # Custom (freeform) tool calls are app tool calls: arguments ``{"input": <raw text>}``.
    calls = [
        (i.call_id, i.name, orjson.loads(i.arguments))
        if i.type == "function_call"
        else (i.call_id, i.name, {"input": i.input})
        for i in final.output
        if i.type in ("function_call", "custom_tool_call")
    ]
    assert [(c.id, c.name, c.arguments) for c in ours.tool_calls] == calls
    reasoning = [i for i in final.output if i.type == "reasoning"]
    ours_parts = [p for p in ours.message.content if p.type == "reasoning"]
    assert [(p.provider_data or {}).get("id") for p in ours_parts] == [r.id for r in reasoning]
    assert [(p.provider_data or {}).get("encrypted_content") for p in ours_parts] == [
        r.encrypted_content for r in reasoning
    ]
    sdk_reasoning = "\n\n".join(
        "\n\n".join(s.text for s in r.summary) or "".join(c.text for c in r.content or [])
        for r in reasoning
    )
    assert ours.reasoning == sdk_reasoning
    builtin = [
        i.model_dump(exclude_unset=True)
        for i in final.output
        if i.type not in ("message", "function_call", "custom_tool_call", "reasoning")
    ]
    # provider-run items come back as RawParts, in output order, exactly as the SDK built them
    assert [p.data for p in ours.message.content if p.type == "raw"] == builtin

    if final.status == "incomplete":
        assert final.incomplete_details is not None
        assert ours.raw_finish_reason == final.incomplete_details.reason
    else:
        assert final.status == "completed"
        assert ours.finish_reason == ("tool_calls" if calls else "stop")
    assert final.usage is not None and ours.usage is not None
    assert ours.usage.input_tokens == final.usage.input_tokens
    assert ours.usage.output_tokens == final.usage.output_tokens
    assert ours.usage.cached_input_tokens == final.usage.input_tokens_details.cached_tokens
    assert ours.usage.reasoning_tokens == final.usage.output_tokens_details.reasoning_tokens

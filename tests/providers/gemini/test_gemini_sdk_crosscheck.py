"""Cross-check the fixtures with the official ``google-genai`` SDK (a dev-only reference).

The SDK streams each fixture body through its own client (mocked transport, fake key); its
parts, finish reason and usage are folded the obvious way and compared with
``llmbridge.response.accumulate`` of our events. The SDK also builds a request for the same
settings, and its URL and body must match ours.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from llmbridge.events import Usage
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.gemini.finish_reasons import map_finish_reason
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect, load_fixture
from llmbridge.testing.prepared import prepared_decoder

genai = pytest.importorskip("google.genai")
from google.genai import errors as genai_errors  # noqa: E402
from google.genai import types  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
ALL = sorted(p.parent for p in FIXTURES.glob("gemini/*/input.json")) + sorted(
    p.parent for p in FIXTURES.glob("vertex/*/input.json")
)


def sdk_client(body: bytes, seen: dict[str, Any]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["body"] = json.loads(request.content)
        seen["headers"] = dict(request.headers)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(handler)
    options = types.HttpOptions(httpx_client=httpx.Client(transport=transport))
    return genai.Client(api_key="fake-key", http_options=options)


def sdk_fold(responses: list[Any]) -> dict[str, Any]:
    text, reasoning, calls = [], [], []
    finish, usage = None, None
    for response in responses:
        if response.usage_metadata is not None:
            usage = response.usage_metadata
        for candidate in response.candidates or []:
            finish = candidate.finish_reason or finish
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.function_call is not None:
                    calls.append(part.function_call)
                elif part.text is not None:
                    (reasoning if part.thought else text).append(part.text)
        if response.prompt_feedback is not None and response.prompt_feedback.block_reason:
            finish = response.prompt_feedback.block_reason
    return {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "calls": calls,
        "finish": finish,
        "usage": usage,
    }


def sdk_usage(meta: Any) -> Usage | None:
    if meta is None:
        return None
    thoughts = meta.thoughts_token_count or 0
    return Usage(
        input_tokens=(meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0),
        output_tokens=(meta.candidates_token_count or 0) + thoughts,
        cached_input_tokens=meta.cached_content_token_count or 0,
        reasoning_tokens=thoughts,
    )


@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}/{p.name}" for p in ALL])
def test_fixture_body_agrees_with_the_sdk(path: Path) -> None:
    fx = load_fixture(path)
    provider = create_provider(
        fx.provider, ProviderConfig.from_mapping({**fx.provider_config, "api_key": "k"})
    )
    events, error = decode_collect(prepared_decoder(provider, fx.request)(), fx.body_chunks())
    ours = accumulate(events, provider=fx.provider)
    client = sdk_client(fx.body, {})
    stream = client.models.generate_content_stream(model=fx.request.model, contents="q")
    if (path / "error.json").exists() and error is not None and error.provider_message:
        with pytest.raises(genai_errors.APIError) as info:  # the in-stream error object
            list(stream)
        assert error.provider_message == info.value.message
        return
    theirs = sdk_fold(list(stream))
    if error is not None:
        # The SDK accepts a stream that stops with no finishReason; we flag it (truncation).
        assert type(error).__name__ == "StreamTruncatedError" and theirs["finish"] is None
        assert ours.text == theirs["text"]
        return
    assert ours.text == theirs["text"]
    assert ours.reasoning == theirs["reasoning"]
    if any(c.will_continue or c.partial_args for c in theirs["calls"]):
        # Vertex streamed arguments: the SDK lists every fragment; calls open on named ones.
        assert [c.name for c in ours.tool_calls] == [c.name for c in theirs["calls"] if c.name]
    else:
        assert [(c.name, c.arguments) for c in ours.tool_calls] == [
            (c.name, c.args or {}) for c in theirs["calls"]
        ]
        assert [
            c.id for c in ours.tool_calls if not (c.provider_data or {}).get("generated_id")
        ] == [c.id for c in theirs["calls"] if c.id]
    raw = str(theirs["finish"].value)
    assert ours.raw_finish_reason == raw
    assert ours.finish_reason == map_finish_reason(raw, had_tool_calls=bool(theirs["calls"]))
    assert ours.usage == sdk_usage(theirs["usage"])


def test_request_matches_what_the_sdk_sends() -> None:
    fx = load_fixture(FIXTURES / "gemini" / "text")
    seen: dict[str, Any] = {}
    client = sdk_client(fx.body, seen)
    config = types.GenerateContentConfig(
        system_instruction="Answer in one sentence.",
        temperature=0.4,
        max_output_tokens=256,
        top_p=0.9,
        stop_sequences=["\n\n"],
    )
    list(
        client.models.generate_content_stream(
            model="gemini-2.5-flash", contents="Why is the sky blue?", config=config
        )
    )
    ours = fx.http_request
    assert seen["url"] == ours["url"]
    assert seen["headers"]["x-goog-api-key"] == "fake-key"
    assert seen["body"]["contents"] == ours["body"]["contents"]
    assert seen["body"]["generationConfig"] == ours["body"]["generationConfig"]
    # the SDK adds the optional role "user" to the system instruction; the parts are the same
    assert seen["body"]["systemInstruction"]["parts"] == ours["body"]["systemInstruction"]["parts"]


def test_tool_round_trip_parts_match_the_sdk_serialization() -> None:
    fx = load_fixture(FIXTURES / "gemini" / "signature_round_trip")
    seen: dict[str, Any] = {}
    client = sdk_client(load_fixture(FIXTURES / "gemini" / "text").body, seen)
    ours = fx.http_request["body"]["contents"]
    contents = [types.Content.model_validate(c) for c in ours]
    list(client.models.generate_content_stream(model="gemini-2.5-flash", contents=contents))
    # everything we send is valid for the SDK's types and survives its serialization unchanged
    assert seen["body"]["contents"] == ours

"""Every Chat Completions fixture body fed to the official ``openai`` SDK (dev-only reference):
its accumulated text, tool calls and finish reason must equal ours.

The SDK is a reference, not gospel; where it is wrong on a quirk we handle on purpose, the
fixture is listed in ``SDK_DIFFERS`` with the reason, and we assert what we do instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from llmbridge.errors import StreamTruncatedError
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect, load_fixture
from llmbridge.testing.prepared import prepared_decoder

openai = pytest.importorskip("openai")
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402

ROOT = Path(__file__).resolve().parents[3] / "fixtures"
_DIRS = ("openai", "openai-compatible", "ollama", "vllm", "llamacpp", "lmstudio", "groq", "deepseek",
         "openrouter", "together", "mistral", "xai", "azure", "cerebras", "fireworks")  # fmt: skip
FIXTURES = sorted(p.parent for d in _DIRS for p in (ROOT / d).glob("*/input.json"))

SDK_DIFFERS = {
    # The SDK keys calls by `index` only, so two calls sent at index 0 (gateway quirk) merge
    # into one call with concatenated arguments; we split them by id.
    "openai-compatible/index_zero_for_every_call": "merges calls that share index 0",
    # No `index` at all: the SDK's accumulator indexes by the missing key and fails.
    "openai-compatible/no_ids_no_index_object_arguments": "needs `index` and string arguments",
    "mistral/thinking_parts_and_tool_call": "needs `index`; list-typed content not supported",
    # A first `index` of 1 makes the SDK index past the end of its list (IndexError).
    "openai-compatible/first_index_one_null_args": "fails on a first index of 1",
}


def _sdk(body: bytes) -> tuple[Any, Exception | None]:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = openai.OpenAI(
        api_key="test-key",
        base_url="http://sdk.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    state: Any = ChatCompletionStreamState()
    try:
        for chunk in client.chat.completions.create(model="m", messages=[], stream=True):
            state.handle_chunk(chunk)
    except openai.APIError as exc:
        return state, exc
    return state, None


def _sdk_call(call: Any) -> tuple[str, str, str]:
    """``(id, name, raw text)`` of a call in the SDK's accumulated message.

    Custom (freeform) tool calls: the SDK's chunk type (``ChoiceDeltaToolCall``, openai 3.54)
    has no ``custom`` member and types ``type`` as ``"function"`` only, so the SDK is wrong
    about them: it builds a ``ParsedFunctionToolCall`` with ``function=None`` and
    ``type="custom"``, and keeps the payload only as an untyped extra dict ``custom`` (whose
    ``input`` strings its accumulator does concatenate). We read that dict.
    """
    if call.function is None:
        custom = (call.model_extra or {})["custom"]
        return call.id, custom["name"], custom.get("input") or ""
    return call.id, call.function.name, call.function.arguments or ""


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.name}" for p in FIXTURES])
def test_sdk_accumulates_what_we_accumulate(path: Path) -> None:
    fx = load_fixture(path)
    provider = create_provider(
        fx.provider, ProviderConfig.from_mapping({**fx.provider_config, "api_key": "k"})
    )
    events, error = decode_collect(prepared_decoder(provider, fx.request)(), [fx.body])
    ours = accumulate(events)
    if fx.name in SDK_DIFFERS:
        try:
            state, sdk_error = _sdk(fx.body)
            sdk_calls = state.current_completion_snapshot.choices[0].message.tool_calls or []
        except Exception:  # the SDK cannot read this stream at all
            sdk_calls = None
        assert sdk_calls is None or len(sdk_calls) != len(ours.tool_calls)
        assert all(not c.error for c in ours.tool_calls) and ours.tool_calls
        return
    state, sdk_error = _sdk(fx.body)
    # The SDK does not notice a stream cut before its end; we raise StreamTruncatedError.
    if isinstance(error, StreamTruncatedError):
        assert sdk_error is None
    else:
        assert (sdk_error is None) == (error is None), (sdk_error, error)
    try:
        snapshot = state.current_completion_snapshot
    except AssertionError:  # no chunk reached the SDK
        assert not ours.text and not ours.tool_calls
        return
    message = snapshot.choices[0].message
    # We surface refusals as text (the SDK keeps them apart in `refusal`).
    assert ours.text == (message.content or "") + (message.refusal or "")
    sdk_calls = [_sdk_call(c) for c in message.tool_calls or []]
    assert [(c.id, c.name, c.raw_arguments or "") for c in ours.tool_calls] == sdk_calls
    for call, (_, _, raw) in zip(ours.tool_calls, sdk_calls, strict=True):
        if (call.provider_data or {}).get("custom"):
            assert call.arguments == {"input": raw}
        elif call.error is None:
            assert call.arguments == (json.loads(raw) if raw else {})
    if error is None:
        raw = snapshot.choices[0].finish_reason
        assert ours.raw_finish_reason == raw
        if snapshot.usage is not None and ours.usage is not None:
            assert ours.usage.input_tokens == snapshot.usage.prompt_tokens
            assert ours.usage.output_tokens == snapshot.usage.completion_tokens

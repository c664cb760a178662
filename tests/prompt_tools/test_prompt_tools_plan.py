"""``fallback.plan``: the client's one call (wire request + decoder wrapper) per tool mode."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge import ChatMessage, ChatRequest, TextDelta, ToolCallStart, ToolSpec
from llmbridge.events import StreamEvent
from llmbridge.prompt_tools import (
    Plan,
    PromptToolDecoder,
    plan,
    prepare_request,
    rescues_by_default,
)
from llmbridge.providers import Capabilities, ProviderConfig, create_provider
from llmbridge.providers.openai.presets import PRESETS

SEARCH = ToolSpec.from_json_schema(
    "search", "Web search.", {"type": "object", "properties": {"q": {"type": "string"}}}
)
UNKNOWN_CALL = '<function_call>{"name": "nope", "arguments": {}}</function_call>'
SEARCH_CALL = '<function_call>{"name": "search", "arguments": {"q": "x"}}</function_call>'


class InnerDecoder:
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        return [TextDelta(data)]

    def close(self) -> list[StreamEvent]:
        return []


class FakeProvider:
    """Only what ``plan`` asks of a provider: capabilities and decoders (recorded)."""

    name = "fake"

    def __init__(self, *, native_tools: bool) -> None:
        self.caps = Capabilities(native_tools=native_tools)
        self.decoded: list[ChatRequest] = []

    def capabilities(self, model: str) -> Capabilities:
        return self.caps

    def new_decoder(self, request: ChatRequest) -> InnerDecoder:
        self.decoded.append(request)
        return InnerDecoder()


def decoders(planned: Plan, provider: FakeProvider) -> Any:
    """The plan's decoder factory around ``provider``'s decoders for the planned request."""
    return planned.decoders(lambda: provider.new_decoder(planned.request))


def plan_for(
    req: ChatRequest, *, native_tools: bool, rescue: bool = False
) -> tuple[tuple[ChatRequest, Any], FakeProvider]:
    provider = FakeProvider(native_tools=native_tools)
    planned = plan(req, provider.caps, rescue=rescue)
    return (planned.request, decoders(planned, provider)), provider


def request(**kw: Any) -> ChatRequest:
    base: dict[str, Any] = {
        "model": "m",
        "messages": [ChatMessage.user("hi"), ChatMessage.assistant("ok"), ChatMessage.user("q")],
        "tools": [SEARCH],
    }
    return ChatRequest.model_validate({**base, **kw})


def run(decoder: Any, *chunks: str) -> list[StreamEvent]:
    events = [e for chunk in chunks for e in decoder.feed("", chunk)]
    return events + decoder.close()


@pytest.mark.parametrize("mode", ["auto", "native", "prompt"])
def test_a_request_without_tools_is_sent_as_is(mode: str) -> None:
    req = request(tools=[], tool_mode=mode)
    (wire, new_decoder), provider = plan_for(req, native_tools=False, rescue=True)
    assert wire is req and isinstance(new_decoder(), InnerDecoder)
    assert provider.decoded == [req]


@pytest.mark.parametrize(("mode", "native_tools"), [("auto", True), ("native", False)])
def test_native_tools_keep_the_provider_decoder(mode: str, native_tools: bool) -> None:
    req = request(tool_mode=mode)
    (wire, new_decoder), provider = plan_for(req, native_tools=native_tools)
    assert wire is req and isinstance(new_decoder(), InnerDecoder)
    assert provider.decoded == [req]


@pytest.mark.parametrize(("mode", "native_tools"), [("auto", False), ("prompt", True)])
@pytest.mark.parametrize("rescue", [False, True])
def test_prompt_mode_prepares_the_request_and_wraps_the_decoder(
    mode: str, native_tools: bool, rescue: bool
) -> None:
    req = request(tool_mode=mode)
    (wire, new_decoder), provider = plan_for(req, native_tools=native_tools, rescue=rescue)
    assert wire == prepare_request(req) and wire.tools == [] and req.tools == [SEARCH]
    decoder = new_decoder()
    assert isinstance(decoder, PromptToolDecoder) and provider.decoded == [wire]
    # prompt mode even with rescue=True: any name is extracted, ids carry the turn prefix
    starts = [e for e in run(decoder, UNKNOWN_CALL) if isinstance(e, ToolCallStart)]
    assert [(s.name, s.id) for s in starts] == [("nope", "call_1_0")]
    assert new_decoder() is not decoder  # a fresh decoder per attempt


def test_rescue_wraps_native_tools_and_extracts_only_declared_tools() -> None:
    req = request()
    (wire, new_decoder), provider = plan_for(req, native_tools=True, rescue=True)
    decoder = new_decoder()
    assert wire is req and isinstance(decoder, PromptToolDecoder) and provider.decoded == [req]
    events = run(decoder, UNKNOWN_CALL, SEARCH_CALL)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == UNKNOWN_CALL
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.name, s.id) for s in starts] == [("search", "call_1_0")]


class PresetProvider(FakeProvider):
    """A provider whose model rescues by default, as the self-hosted presets' do."""

    def __init__(self, *, rescue_tool_calls: bool) -> None:
        super().__init__(native_tools=True)
        self.caps = Capabilities(native_tools=True, rescue_tool_calls=rescue_tool_calls)


@pytest.mark.parametrize(
    ("preset_says", "app_says", "wrapped"),
    [
        (True, None, True),  # the app did not say: the preset's default
        (True, False, False),  # the app's False means off
        (False, None, False),
        (False, True, True),
    ],
)
def test_rescue_defaults_to_the_preset_and_the_app_wins(
    preset_says: bool, app_says: bool | None, wrapped: bool
) -> None:
    provider = PresetProvider(rescue_tool_calls=preset_says)
    new_decoder = decoders(plan(request(), provider.caps, rescue=app_says), provider)
    assert isinstance(new_decoder(), PromptToolDecoder) is wrapped
    assert rescues_by_default(provider.caps) is preset_says


def test_providers_without_a_preset_do_not_rescue_by_default() -> None:
    provider = FakeProvider(native_tools=True)
    assert rescues_by_default(provider.caps) is False
    assert isinstance(decoders(plan(request(), provider.caps), provider)(), InnerDecoder)


def test_self_hosted_presets_rescue_by_default() -> None:
    on = {name for name, preset in PRESETS.items() if preset.rescue_tool_calls}
    assert on == {"llamacpp", "ollama", "vllm", "lmstudio"}
    options = {"base_url": "http://127.0.0.1:1/v1", "rescue_tool_calls": False}
    provider = create_provider("vllm", ProviderConfig.from_mapping(options))
    assert rescues_by_default(provider.capabilities("m")) is False  # the default turned off
    assert rescues_by_default(
        create_provider("vllm", ProviderConfig.from_mapping({})).capabilities("m")
    )

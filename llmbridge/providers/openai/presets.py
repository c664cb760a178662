"""Presets: one data row per OpenAI-compatible server (and ``openai`` itself).

Rules: a preset is data, never a code branch. Each row names the default base URL (``None``:
the user must give one), the key variables (and whether a key is required: local servers run
without), and capability / quirk flags the encoder and decoder read. Any flag can be
overridden per client through provider options, e.g.
``Client(providers={"ollama": {"native_tools": False}})``.

The decoder already copes with every streaming quirk seen in the wild (whole calls in one
chunk, missing ids or index, arguments as objects, ``stop`` while calling tools), so flags here
mostly shape the *request*: which body fields a server accepts.

This module is data: it imports only the standard library, ``llmbridge.errors`` and the names
of the AWS host (``providers.hosts.aws``: Mantle's URL, region and key variables), never the
provider, request or decoder code that reads it. ``PRESETS`` is the one list of preset names:
every row is a model-string prefix (``llmbridge.providers.registry`` reads the table on first
use; ``provider.preset_factory`` builds the provider for a row).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, get_args

from ...errors import ConfigurationError
from ..hosts.aws import BEDROCK_KEY_VAR, MANTLE_URL, REGION_VARS

__all__ = ["PRESETS", "PRESET_OPTIONS", "Preset", "resolve_preset"]

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]
ToolCallIds = Literal["any", "openai", "mistral"]
ReasoningStyle = Literal["effort", "openrouter", "none"]
WebSearchStyle = Literal["options", "openrouter", "none"]
Api = Literal["chat", "responses"]


@dataclass(frozen=True, slots=True)
class Preset:
    """How to talk to one OpenAI-compatible server."""

    name: str
    base_url: str | None
    """Default base URL (ending in the version path, e.g. ``/v1``); ``None``: must be given."""
    key_vars: tuple[str, ...] = ()
    key_required: bool = True
    native_tools: bool = True
    """Whether its models call tools natively (else prompt tools take over)."""
    reasoning: bool = False
    """Whether it streams reasoning (``reasoning_content`` / ``reasoning`` fields)."""
    images: bool = True
    accepts_stream_options: bool = True
    """Send ``stream_options.include_usage`` (servers that reject unknown fields say False)."""
    max_tokens_field: MaxTokensField = "max_tokens"
    strict_tools: bool = False
    """Accepts ``strict`` on function tools (else it is left out)."""
    json_schema: bool = True
    """Accepts ``response_format: json_schema`` (else ``json_object`` is sent)."""
    parallel_tool_calls: bool = True
    """Accepts the ``parallel_tool_calls`` field."""
    sends_index: bool = True
    """Tool-call fragments carry ``index`` (Mistral's do not: the decoder ignores it)."""
    send_reasoning_content: bool = False
    """Send earlier ``reasoning_content`` back on assistant turns (DeepSeek tool-call turns)."""
    reasoning_style: ReasoningStyle = "none"
    """How ``ChatRequest.reasoning`` is sent: ``reasoning_effort``, OpenRouter's ``reasoning``."""
    json_without_thinking: bool = False
    """With a ``response_format`` and no reasoning asked for, turn the chat template's thinking
    off (``chat_template_kwargs.enable_thinking: false``): llama-server's JSON grammar does not
    hold inside a template's ``<think>`` section, which Qwen3-style templates open by default."""
    cache_points: bool = False
    """Takes explicit prompt-cache breakpoints (``prompt_cache_breakpoint`` on content parts)."""
    top_k: bool = False
    """Takes ``top_k`` (an extension of self-hosted servers and some gateways)."""
    seed_field: str | None = "seed"
    """The body field for ``seed`` (Mistral: ``random_seed``); ``None``: no seed."""
    server_errors_repeat: bool = False
    """Its 500s come from the request itself and would repeat (llama.cpp's server: an image
    sent to a model without a vision projector, a template error): not retried."""
    rescue_tool_calls: bool = False
    """Its servers are known to leak tool calls as text (chat-template markup in ``content``):
    rescue them by default (``llmbridge.prompt_tools``; an app's ``rescue_tool_calls=`` wins)."""
    gemini_signatures: bool = False
    """Gemini's OpenAI endpoint: a Gemini 3 model validates thought signatures on the current
    turn's calls, so calls it did not sign get Google's placeholder in ``extra_content``. On by
    default when the base URL is ``generativelanguage.googleapis.com``."""
    tool_call_ids: ToolCallIds = "any"
    """The tool-call ids it accepts: ``openai`` at most 40 characters, ``mistral`` exactly 9
    alphanumerics; ids from other providers that do not fit are rewritten
    (``llmbridge.providers.history``)."""
    web_search: WebSearchStyle = "none"
    """How it runs the ``lb.WebSearch`` spec (``hosted.py``): ``options`` (``openai``: its search
    models, a name holding ``search``, take ``web_search_options``), ``openrouter`` (every
    model, through the ``openrouter:web_search`` server tool) or ``none`` (refused)."""
    auth: Literal["bearer", "api-key"] = "bearer"
    azure: bool = False
    """Azure OpenAI: deployment URLs (``/openai/deployments/{model}/...?api-version=``), or the
    v1 API (``/openai/v1/...``, no ``api-version``) when the endpoint ends in ``/openai/v1``,
    ``api_version`` is ``"v1"`` or the endpoint comes from the ``resource`` option; an Entra ID
    ``token_provider`` / ``auth`` replaces the ``api-key`` header (``Authorization: Bearer``)."""
    api: Api = "chat"
    """The API the server speaks: Chat Completions (``OpenAIChatProvider``) or Responses
    (``OpenAIResponsesProvider``): a row per API, e.g. ``bedrock-mantle`` and
    ``bedrock-mantle-responses``."""
    base_url_vars: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Placeholders of ``base_url`` (``{region}``) and where their values come from: the option
    of that name, then the environment variables, in order."""


def _p(name: str, base_url: str | None, *key_vars: str, **flags: Any) -> Preset:
    return Preset(name, base_url, key_vars, **flags)


_LOCAL = {"key_required": False}
_AWS_REGION = {"base_url_vars": (("region", REGION_VARS),)}
_MANTLE = MANTLE_URL + "/v1"  # some models: .../openai/v1 (base_url)
_AZURE = {
    "auth": "api-key",
    "azure": True,
    "max_tokens_field": "max_completion_tokens",
    "strict_tools": True,
    "reasoning_style": "effort",
    "tool_call_ids": "openai",
}
_SELF_HOSTED = {**_LOCAL, "rescue_tool_calls": True}  # local servers that leak tool markup

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _p("openai", "https://api.openai.com/v1", "OPENAI_API_KEY",
           max_tokens_field="max_completion_tokens", strict_tools=True, reasoning_style="effort",
           cache_points=True, tool_call_ids="openai", web_search="options"),
        _p("openai-compatible", None, "OPENAI_COMPATIBLE_API_KEY", **_LOCAL),
        _p("ollama", "http://localhost:11434/v1", "OLLAMA_API_KEY", **_SELF_HOSTED, reasoning=True,
           reasoning_style="effort"),
        _p("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", **_SELF_HOSTED, reasoning=True,
           top_k=True),
        _p("llamacpp", "http://localhost:8080/v1", "LLAMACPP_API_KEY", **_SELF_HOSTED, reasoning=True,
           send_reasoning_content=True,  # Qwen3-style templates render it within a tool turn
           top_k=True, json_without_thinking=True,
           server_errors_repeat=True),  # llama-server answers 503 while loading, 500 for bad input
        _p("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_API_KEY", **_SELF_HOSTED, reasoning=True,
           accepts_stream_options=False, top_k=True),
        _p("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", reasoning=True,
           max_tokens_field="max_completion_tokens", reasoning_style="effort"),
        _p("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", reasoning=True,
           images=False, json_schema=False, send_reasoning_content=True),
        _p("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", reasoning=True,
           strict_tools=True, reasoning_style="openrouter", top_k=True,
           web_search="openrouter"),
        _p("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY", reasoning=True,
           accepts_stream_options=False, top_k=True),
        _p("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", reasoning=True,
           accepts_stream_options=False, sends_index=False, seed_field="random_seed",
           tool_call_ids="mistral"),
        _p("xai", "https://api.x.ai/v1", "XAI_API_KEY", reasoning=True, strict_tools=True,
           reasoning_style="effort"),
        _p("azure", None, "AZURE_OPENAI_API_KEY", **_AZURE),
        _p("azure-responses", None, "AZURE_OPENAI_API_KEY", **_AZURE, api="responses"),
        _p("bedrock-mantle", _MANTLE, BEDROCK_KEY_VAR, **_AWS_REGION, reasoning=True,
           reasoning_style="effort"),
        _p("bedrock-mantle-responses", _MANTLE, BEDROCK_KEY_VAR, **_AWS_REGION,
           api="responses"),
        _p("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", reasoning=True,
           accepts_stream_options=False, max_tokens_field="max_completion_tokens",
           strict_tools=True),
        _p("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY",
           reasoning=True, accepts_stream_options=False),
    )
}  # fmt: skip

_FLAG_NAMES = frozenset(f.name for f in fields(Preset)) - {
    "name", "base_url", "key_vars", "api", "base_url_vars"}  # fmt: skip
PRESET_OPTIONS = _FLAG_NAMES | {"api_version", "resource", "region", "hosted_tools"}
"""The provider options an OpenAI-compatible preset takes besides the common ones: any flag
above (overriding the preset's), Azure's ``api_version`` and ``resource``, a templated base URL's
``region`` (Bedrock's Mantle) and a Responses row's ``hosted_tools``."""
_CHOICES: dict[str, tuple[str, ...]] = {
    "max_tokens_field": get_args(MaxTokensField),
    "tool_call_ids": get_args(ToolCallIds),
    "reasoning_style": get_args(ReasoningStyle),
    "web_search": get_args(WebSearchStyle),
}
"""The flags that name one of a few choices (the encoder looks some of them up)."""


def resolve_preset(name: str, options: Mapping[str, Any]) -> Preset:
    """The preset ``name`` with any flags overridden by provider ``options``."""
    try:
        preset = PRESETS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown OpenAI-compatible preset {name!r}; known: {', '.join(sorted(PRESETS))}"
        ) from None
    overrides = {k: v for k, v in options.items() if k in _FLAG_NAMES}
    for flag, value in overrides.items():
        choices = _CHOICES.get(flag)
        if choices is not None and value not in choices:
            raise ConfigurationError(
                f"{name}: {flag}={value!r} is not one of {', '.join(map(repr, choices))}",
                provider=name,
            )
    return replace(preset, **overrides) if overrides else preset

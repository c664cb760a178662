"""``plan``: the one call the client makes to decide how a request with tools is sent.

Rules:

* The decision is ``choose_tool_mode``'s (``request.py``): native tools, or the prompt
  fallback (``prepare_request`` writes the tools into the prompt).
* ``rescue=None`` (the client's default) lets the provider decide: an OpenAI-compatible preset
  whose servers are known to leak tool markup as text (``Preset.rescue_tool_calls``: llama.cpp,
  Ollama, vLLM, LM Studio) rescues by default; ``True`` / ``False`` is the app's word and wins.
* Native tools without rescue: the request and the provider's own decoder, untouched.
* Otherwise the provider's decoder is wrapped in a ``PromptToolDecoder``: in prompt mode it
  extracts every tagged call; with native tools and ``rescue=True`` it extracts only leaked
  calls to declared tools. Either way generated ids carry ``call_id_prefix(request)``, and the
  wrapper knows the tools of the original request (the prepared one has none).
* A request without tools is sent as is, whatever its ``tool_mode``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..providers.base import AnyDecoder, Provider
from ..types import ChatRequest
from .decoder import PromptToolDecoder
from .request import call_id_prefix, choose_tool_mode, prepare_request

__all__ = ["Plan", "plan", "rescues_by_default"]


class Plan(NamedTuple):
    """What to send and how to read the answer."""

    request: ChatRequest
    """The request for ``provider.build_request``."""
    new_decoder: Callable[[], AnyDecoder]
    """A fresh decoder per attempt (retries and fallbacks start over)."""


def rescues_by_default(provider: Provider) -> bool:
    """Whether ``provider`` asks for rescue when the app did not say (its preset's flag)."""
    return getattr(getattr(provider, "preset", None), "rescue_tool_calls", False) is True


def plan(request: ChatRequest, provider: Provider, *, rescue: bool | None = None) -> Plan:
    """The request to send through ``provider`` and the decoder factory for its stream."""
    if rescue is None:
        rescue = rescues_by_default(provider)
    if not request.tools:
        return Plan(request, lambda: provider.new_decoder(request))
    use_prompt = choose_tool_mode(request, provider.capabilities(request.model)) == "prompt"
    if not use_prompt and not rescue:
        return Plan(request, lambda: provider.new_decoder(request))
    tools, prefix = request.tools, call_id_prefix(request)
    wire = prepare_request(request) if use_prompt else request

    def new_decoder() -> AnyDecoder:
        return PromptToolDecoder(
            provider.new_decoder(wire), tools=tools, rescue=not use_prompt, id_prefix=prefix
        )

    return Plan(wire, new_decoder)

"""``plan``: the one decision of how a request with tools is sent.

Rules:

* The decision is ``choose_tool_mode``'s (``request.py``), from the model's ``Capabilities``
  (asked once per request by the client, ``client.pipeline.plan_request``): native tools, or
  the prompt fallback (``prepare_request`` writes the tools into the prompt).
* ``rescue=None`` (the client's default) lets the provider decide: a model whose server is
  known to leak tool markup as text (``Capabilities.rescue_tool_calls``, from an
  OpenAI-compatible preset's flag: llama.cpp, Ollama, vLLM, LM Studio) rescues by default;
  ``True`` / ``False`` is the app's word and wins.
* Native tools without rescue: the request as is, and no wrapper (``Plan.wrap is None``).
* Otherwise each attempt's decoder (the prepared call's) is wrapped in a ``PromptToolDecoder``:
  in prompt mode it extracts every tagged call; with native tools and ``rescue=True`` it
  extracts only leaked calls to declared tools. Either way generated ids carry
  ``call_id_prefix(request)``, and the wrapper knows the tools of the original request (the
  prepared one has none).
* A request without tools is sent as is, whatever its ``tool_mode``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..providers.base import AnyDecoder, Capabilities
from ..request import ChatRequest
from .decoder import PromptToolDecoder
from .request import call_id_prefix, choose_tool_mode, prepare_request

__all__ = ["Plan", "plan", "rescues_by_default"]


class Plan(NamedTuple):
    """What to send and how to read the answer."""

    request: ChatRequest
    """The request to prepare (``Prepares.prepare``)."""
    wrap: Callable[[AnyDecoder], AnyDecoder] | None
    """Put around each attempt's decoder (``None``: the provider's decoder as it is)."""

    def decoders(self, new_decoder: Callable[[], AnyDecoder]) -> Callable[[], AnyDecoder]:
        """``new_decoder`` with ``wrap`` around each decoder it makes (a fresh one per
        attempt: retries and fallbacks start over)."""
        wrap = self.wrap
        if wrap is None:
            return new_decoder
        return lambda: wrap(new_decoder())


def rescues_by_default(capabilities: Capabilities) -> bool:
    """Whether the model rescues leaked tool markup when the app did not say."""
    return capabilities.rescue_tool_calls


def plan(request: ChatRequest, capabilities: Capabilities, *, rescue: bool | None = None) -> Plan:
    """The request to send and the wrapper of its decoders (see the module rules)."""
    if rescue is None:
        rescue = rescues_by_default(capabilities)
    if not request.tools:
        return Plan(request, None)
    use_prompt = choose_tool_mode(request, capabilities) == "prompt"
    if not use_prompt and not rescue:
        return Plan(request, None)
    tools, prefix = request.tools, call_id_prefix(request)
    wire = prepare_request(request) if use_prompt else request

    def wrap(inner: AnyDecoder) -> AnyDecoder:
        return PromptToolDecoder(inner, tools=tools, rescue=not use_prompt, id_prefix=prefix)

    return Plan(wire, wrap)

"""Prompt-based tool calling for models without native tools (and rescue of leaked calls).

The client makes one call: ``plan(request, capabilities, rescue=...)`` gives the request to send
and the wrapper of the decoders that read its stream (``plan.py``). Request side:
``prepare_request(request)`` writes the tools and the calling format into the system prompt
and rewrites tool history as text. Response side: ``PromptToolDecoder`` wraps a provider
decoder and turns ``<function_call>{"name": ..., "arguments": {...}}</function_call>``
in the streamed text into the same ``ToolCallStart`` / ``ToolCallChunk`` / ``ToolCallEnd``
events native tools give, through the sans-IO ``ToolCallParser``.

Policy for bad calls (see ``parser.py``): an unknown tool name, malformed JSON, a missing name,
non-object arguments or a stream ending inside a tag never crash and never vanish: the call is
emitted with ``ToolCallEnd.error`` set and the whole tag text in
``provider_data["raw_text"]``. In rescue mode (on by default for the presets of self-hosted
servers known to leak markup: llama.cpp, Ollama, vLLM, LM Studio) the markup of several model
families is recognised (``KNOWN_DIALECTS``: ``<function_call>``, Hermes/Qwen ``<tool_call>``,
Mistral ``[TOOL_CALLS]``, Llama ``<|python_tag|>``, Kimi K2 sections, gpt-oss Harmony), only
calls to declared tools are extracted, everything else stays text, and the ``Finish`` event
says a rescue happened (``provider_data["warnings"]``).
"""

from .body import CallBody
from .decoder import PromptToolDecoder
from .dialects import (
    FUNCTION_CALL,
    HARMONY,
    KIMI,
    KNOWN_DIALECTS,
    LLAMA_PYTHON_TAG,
    MISTRAL,
    TOOL_CALL,
    Dialect,
    render_call,
)
from .history import render_result, rewrite_history
from .instructions import merge_system, render_instructions
from .parser import ToolCallParser
from .plan import Plan, plan, rescues_by_default
from .request import call_id_prefix, choose_tool_mode, prepare_request

__all__ = [
    "FUNCTION_CALL",
    "HARMONY",
    "KIMI",
    "KNOWN_DIALECTS",
    "LLAMA_PYTHON_TAG",
    "MISTRAL",
    "TOOL_CALL",
    "CallBody",
    "Dialect",
    "Plan",
    "PromptToolDecoder",
    "ToolCallParser",
    "call_id_prefix",
    "choose_tool_mode",
    "merge_system",
    "plan",
    "prepare_request",
    "render_call",
    "render_instructions",
    "render_result",
    "rescues_by_default",
    "rewrite_history",
]

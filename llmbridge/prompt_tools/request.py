"""Request side of prompt-based tool calling: rewrite a ``ChatRequest`` for a model without tools.

Rules:

* ``prepare_request`` is pure: it returns a new request whose messages carry the instructions
  (merged after the caller's system prompt) and whose history has tool calls and results
  written as text; ``tools`` is emptied and ``tool_choice`` / ``parallel_tool_calls`` cleared,
  since the instructions now express them. The input request is not mutated.
* A stop sequence at the result tag (``<function_result``): the model must never write a
  result, and a small model, left to run on after its call, writes one itself (seen on
  llama.cpp with gemma-3-270m: ``</function_call>`` then a made-up ``<function_result>``).
  Text it writes between a call and the stop stays text (nothing is dropped). The caller's own
  stop sequences come first; with four already (the most OpenAI takes) none is added.
* ``choose_tool_mode`` is the one place that decides between native tools and prompt tools:
  ``prompt`` when asked for, ``auto`` → ``prompt`` only when the request has tools and the
  provider says the model has no native tools.
* ``call_id_prefix`` gives ids unique across a conversation and stable for the same request
  (``call_<assistant turns so far>_<n>``), for the decoder's generated call ids.
"""

from __future__ import annotations

from typing import Literal

from ..providers.base import Capabilities
from ..request import ChatRequest
from .dialects import FUNCTION_CALL, Dialect
from .history import rewrite_history
from .instructions import merge_system, render_instructions

__all__ = ["MAX_STOP_SEQUENCES", "call_id_prefix", "choose_tool_mode", "prepare_request"]

MAX_STOP_SEQUENCES = 4


def prepare_request(request: ChatRequest, *, dialect: Dialect = FUNCTION_CALL) -> ChatRequest:
    """A copy of ``request`` for prompt-based tool calling (see module docstring)."""
    messages = rewrite_history(request.messages, dialect=dialect)
    instructions = render_instructions(
        request.tools,
        dialect=dialect,
        tool_choice=request.tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
    )
    stop = [request.stop] if isinstance(request.stop, str) else list(request.stop or [])
    marker = f"<{dialect.result_tag}"
    if marker not in stop and len(stop) < MAX_STOP_SEQUENCES:
        stop.append(marker)
    return request.model_copy(
        update={
            "messages": merge_system(messages, instructions),
            "tools": [],
            "tool_choice": None,
            "parallel_tool_calls": None,
            "stop": stop or None,
        }
    )


def choose_tool_mode(
    request: ChatRequest, capabilities: Capabilities
) -> Literal["native", "prompt"]:
    """Resolve ``request.tool_mode`` (``auto`` / ``native`` / ``prompt``) for one model."""
    if request.tool_mode == "prompt":
        return "prompt"
    if request.tool_mode == "auto" and request.tools and not capabilities.native_tools:
        return "prompt"
    return "native"


def call_id_prefix(request: ChatRequest) -> str:
    """``call_<k>_`` where k counts the assistant turns already in the conversation."""
    turns = sum(1 for m in request.messages if m.role == "assistant")
    return f"call_{turns}_"

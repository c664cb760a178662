"""``ToolSpec``s and ``ToolChoice`` → ``/v2/chat`` ``tools`` / ``tool_choice`` (pure).

Follows ``ToolV2`` of the ``cohere`` SDK: ``{"type": "function", "function": {"name",
"description", "parameters"}}``. ``tool_choice`` takes ``REQUIRED`` or ``NONE`` (nothing for
auto); a named tool is sent as ``REQUIRED`` with the tools cut down to that one (Cohere has no
named choice). A custom (freeform) tool is an ``UnsupportedFeatureError`` naming it
(``encode_tools`` is ``llmbridge.providers.request_parts.encode_function_tools``).
"""

from __future__ import annotations

from ...request import ToolChoice
from ..request_parts import encode_function_tools

__all__ = ["encode_tool_choice", "encode_tools"]

_CHOICES = {"required": "REQUIRED", "none": "NONE", "tool": "REQUIRED"}


encode_tools = encode_function_tools


def encode_tool_choice(choice: ToolChoice) -> str | None:
    return _CHOICES.get(choice.mode)

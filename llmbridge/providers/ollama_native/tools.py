"""``ToolSpec``s → ``/api/chat`` ``tools`` (pure).

Follows ``Tool`` of the ``ollama`` client (``{"type": "function", "function": {"name",
"description", "parameters"}}``, the parameters a JSON schema). A custom (freeform) tool
(``ToolSpec.input_format``) cannot be declared: ``UnsupportedFeatureError`` naming it.
``encode_tools`` is ``llmbridge.providers.request_parts.encode_function_tools``, which Cohere
v2 uses as well.
"""

from __future__ import annotations

from ..request_parts import encode_function_tools

__all__ = ["encode_tools"]


encode_tools = encode_function_tools

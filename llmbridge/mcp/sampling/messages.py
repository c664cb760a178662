"""MCP sampling messages to llmbridge messages and back (pure functions, no IO).

Rules:

* A sampling message's content (one block or a list) becomes parts as
  ``llmbridge.mcp.content`` makes them (text, images, audio); ``tool_use`` blocks of an
  assistant message become ``ToolCallPart``s (id, name, input); ``tool_result`` blocks of a
  user message become ``role="tool"`` messages (one per result, in order, before the rest of
  that user message), named after the ``tool_use`` they answer, ``isError`` kept (audio in a
  result, which tool results cannot hold, becomes a text note).
* The server's ``tools`` become ``ToolSpec``s (``ToolSpec.from_mcp``); ``toolChoice.mode``
  (``auto``, ``required``, ``none``) the request's ``tool_choice``.
* A reply becomes ``CreateMessageResult`` (text) or, when the request carried tools,
  ``CreateMessageResultWithTools`` (text, then one ``tool_use`` per tool call). Stop reasons:
  ``tool_calls`` → ``toolUse``, ``length`` → ``maxTokens``, a provider's raw
  ``stop_sequence`` → ``stopSequence``, anything else → ``endTurn``.
"""

from __future__ import annotations

from typing import Any

from ...messages import ChatMessage
from ...parts import ContentPart, DocumentPart, ImagePart, TextPart, ToolCallPart, ToolResultPart
from ...tool_spec import ToolSpec
from ..content import content_parts, field_of

__all__ = ["reply_result", "sampling_messages", "sampling_tools"]

_STOP = {"length": "maxTokens", "tool_calls": "toolUse"}


def _blocks(content: Any) -> list[Any]:
    if content is None:
        return []
    return list(content) if isinstance(content, (list, tuple)) else [content]


def _result_parts(blocks: Any) -> list[TextPart | ImagePart | DocumentPart]:
    kept: list[TextPart | ImagePart | DocumentPart] = []
    for part in content_parts(_blocks(blocks)):
        if isinstance(part, (TextPart, ImagePart, DocumentPart)):
            kept.append(part)
        else:  # audio: a tool result cannot carry it
            kept.append(TextPart(text=f"[{part.media_type} audio, {len(part.data or b'')} bytes]"))
    return kept


def sampling_messages(params: Any) -> list[ChatMessage]:
    """The request's messages as ``ChatMessage``s (see module rules)."""
    out: list[ChatMessage] = []
    names: dict[str, str] = {}  # tool_use id -> tool name, for the results that answer them
    for message in field_of(params, "messages") or []:
        role = field_of(message, "role")
        parts: list[ContentPart] = []
        for block in _blocks(field_of(message, "content")):
            kind = field_of(block, "type")
            if kind == "tool_use":
                call_id, name = str(field_of(block, "id")), str(field_of(block, "name"))
                names[call_id] = name
                arguments = dict(field_of(block, "input") or {})
                parts.append(ToolCallPart(id=call_id, name=name, arguments=arguments))
            elif kind == "tool_result":
                call_id = str(field_of(block, "toolUseId", "tool_use_id"))
                result = ToolResultPart(
                    tool_call_id=call_id,
                    name=names.get(call_id),
                    content=_result_parts(field_of(block, "content")),
                    is_error=bool(field_of(block, "isError", "is_error")),
                )
                out.append(ChatMessage(role="tool", content=[result]))
            else:
                parts.extend(content_parts(block))
        if parts:
            out.append(
                ChatMessage(role="assistant" if role == "assistant" else "user", content=parts)
            )
    return out


def sampling_tools(params: Any) -> tuple[list[ToolSpec], str | None]:
    """The request's tools as ``ToolSpec``s, and its tool choice (``None``: not given)."""
    tools = [
        ToolSpec.from_mcp(
            {
                "name": field_of(tool, "name"),
                "description": field_of(tool, "description"),
                "inputSchema": field_of(tool, "inputSchema", "input_schema"),
            }
        )
        for tool in field_of(params, "tools") or []
    ]
    choice = field_of(params, "toolChoice", "tool_choice")
    mode = field_of(choice, "mode") if choice is not None else None
    return tools, (str(mode) if mode else None)


def _stop_reason(response: Any) -> str:
    if str(response.raw_finish_reason or "") == "stop_sequence":
        return "stopSequence"
    return _STOP.get(str(response.finish_reason), "endTurn")


def reply_result(response: Any, *, model: str, with_tools: bool) -> Any:
    """The SDK's result for a ``ChatResponse`` (see module rules)."""
    import mcp.types as types

    text = types.TextContent(type="text", text=response.text)
    name = str(getattr(response, "model", None) or model)
    if not with_tools:
        return types.CreateMessageResult(
            role="assistant", content=text, model=name, stop_reason=_stop_reason(response)
        )
    content: list[Any] = [text] if response.text or not response.tool_calls else []
    content += [
        types.ToolUseContent(
            type="tool_use", id=call.id, name=call.name, input=dict(call.arguments)
        )
        for call in response.tool_calls
    ]
    return types.CreateMessageResultWithTools(
        role="assistant", content=content, model=name, stop_reason=_stop_reason(response)
    )

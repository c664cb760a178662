"""Tool results: the ``ToolResult`` event and turning a tool's return value into a message.

Rules: a string is sent as it is; ``TextPart`` / ``ImagePart`` / ``DocumentPart`` (or a list of
them) as parts; an ``AudioPart`` becomes a text note for the model (no provider takes audio in a
tool result), while the part itself stays in the ``ToolResult``'s ``value``;
``ToolOutput`` when the tool wants to set the parts and the error flag itself (MCP results);
anything else as JSON text (pydantic models, dataclasses, dicts, lists, numbers, ``None`` as
``null``). An exception becomes an ``is_error`` result whose text the model can read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import orjson
from pydantic import BaseModel

from ..errors import LLMBridgeError
from ..messages import ChatMessage
from ..parts import AudioPart, DocumentPart, ImagePart, TextPart

ResultPart = TextPart | ImagePart | DocumentPart
"""What a tool result message can hold."""

__all__ = ["ToolOutput", "ToolResult", "error_text", "result_message", "to_content"]


@dataclass(slots=True)
class ToolOutput:
    """What a tool may return to choose its result parts and error flag explicitly."""

    content: str | list[TextPart | ImagePart | DocumentPart | AudioPart]
    is_error: bool = False
    data: Any = None
    """Structured data next to the content (e.g. MCP ``structuredContent``); not sent."""


@dataclass(slots=True)
class ToolResult:
    """Event of the tool loop: one executed tool call and the message sent back for it."""

    type: ClassVar[Literal["tool_result"]] = "tool_result"
    id: str
    """The id of the model's tool call this answers."""
    name: str
    message: ChatMessage
    """A ``tool`` message holding one ``ToolResultPart`` (appended to the conversation)."""
    is_error: bool = False
    value: Any = None
    """What the tool returned (``None`` on errors)."""
    exception: BaseException | None = field(default=None, repr=False)
    """The exception the call raised (validation, limit, timeout or the tool's own)."""


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return list(value)
    return str(value)


_PARTS = (TextPart, ImagePart, DocumentPart, AudioPart)


def _sendable(part: TextPart | ImagePart | DocumentPart | AudioPart) -> ResultPart:
    if not isinstance(part, AudioPart):
        return part
    size = f"{len(part.data)} bytes" if part.data is not None else str(part.url)
    return TextPart(
        text=f"[audio {part.media_type or 'clip'}, {size}: kept by the app, not sent, since "
        "tool results cannot carry audio]"
    )


def to_content(value: Any) -> list[ResultPart]:
    """The message parts for a tool's return value (see module rules)."""
    if isinstance(value, str):
        return [TextPart(text=value)]
    if isinstance(value, _PARTS):
        return [_sendable(value)]
    if isinstance(value, list) and value and all(isinstance(v, _PARTS) for v in value):
        return [_sendable(v) for v in value]
    text = orjson.dumps(value, default=_default, option=orjson.OPT_NON_STR_KEYS).decode()
    return [TextPart(text=text)]


def error_text(exc: BaseException) -> str:
    """What the model reads about a failed call."""
    if isinstance(exc, LLMBridgeError):
        return exc.message
    detail = str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def result_message(
    *, call_id: str, name: str, value: Any = None, exception: BaseException | None = None
) -> ToolResult:
    """Build the ``ToolResult`` for a finished call (``exception`` set means it failed)."""
    if exception is not None:
        content: list[ResultPart] = [TextPart(text=error_text(exception))]
        is_error = True
        value = None
    elif isinstance(value, ToolOutput):
        content = to_content(value.content)
        is_error = value.is_error
    else:
        content = to_content(value)
        is_error = False
    message = ChatMessage.tool_result(call_id, content, name=name, is_error=is_error)
    return ToolResult(
        id=call_id, name=name, message=message, is_error=is_error, value=value, exception=exception
    )

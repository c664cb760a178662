"""History rewriting for prompt-based tool calling: tool turns become plain text turns.

Rules:

* Assistant tool calls become the dialect's tagged text, in place, between the message's text
  parts. A call extracted with an error is written back exactly as the model wrote it (its
  ``provider_data["raw_text"]``); others are rendered from their raw arguments (or from
  ``arguments`` when there is no raw text). A newline separates a call from text or a call
  right before it unless whitespace is already there.
* Tool results become user-turn text: ``<function_result name="get_weather" id="call_0">...
  </function_result>`` (``error="true"`` for failed calls); images in results follow as image
  parts. The name is taken from the result, or from the call with the same id.
* A ``tool`` message becomes a ``user`` message; consecutive rewritten result turns and a user
  turn right after them merge into one user turn, so roles still alternate.
* Other parts (images, reasoning, raw provider parts) are kept as they are. Pure: the input
  messages are never mutated.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import ChatMessage
from ..parts import ContentPart, TextPart, ToolCallPart, ToolResultPart
from .dialects import Dialect, render_call

__all__ = ["render_result", "rewrite_history"]


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def render_result(part: ToolResultPart, *, name: str | None, dialect: Dialect) -> str:
    """One tool result as tagged text."""
    attrs = f' name="{_attr(name)}"' if name else ""
    attrs += f' id="{_attr(part.tool_call_id)}"'
    if part.is_error:
        attrs += ' error="true"'
    tag = dialect.result_tag
    return f"<{tag}{attrs}>\n{part.text}\n</{tag}>"


def _call_text(part: ToolCallPart, dialect: Dialect) -> str:
    raw_text = (part.provider_data or {}).get("raw_text")
    if part.error is not None and isinstance(raw_text, str):
        return raw_text
    raw = part.raw_arguments if part.error is None and part.raw_arguments else None
    return render_call(name=part.name, arguments=part.arguments, raw_arguments=raw, dialect=dialect)


def _rewrite_assistant(message: ChatMessage, dialect: Dialect) -> ChatMessage:
    if not message.tool_calls:
        return message
    content: list[ContentPart] = []
    pieces: list[str] = []
    last_call = False
    for part in message.content:
        if isinstance(part, TextPart):
            if last_call and part.text and not part.text[0].isspace():
                pieces.append("\n")
            pieces.append(part.text)
            last_call = False
        elif isinstance(part, ToolCallPart):
            if pieces and pieces[-1] and not pieces[-1][-1].isspace():
                pieces.append("\n")
            pieces.append(_call_text(part, dialect))
            last_call = True
        else:
            if pieces:
                content.append(TextPart(text="".join(pieces)))
                pieces = []
            content.append(part)
            last_call = False
    if pieces:
        content.append(TextPart(text="".join(pieces)))
    return ChatMessage(role="assistant", content=content)


def _rewrite_results(
    message: ChatMessage, names: dict[str, str], dialect: Dialect
) -> list[ContentPart]:
    content: list[ContentPart] = []
    for part in message.content:
        if isinstance(part, ToolResultPart):
            name = part.name or names.get(part.tool_call_id)
            content.append(TextPart(text=render_result(part, name=name, dialect=dialect)))
            content.extend(p for p in part.content if not isinstance(p, TextPart))
        else:
            content.append(part)
    return content


def rewrite_history(messages: Sequence[ChatMessage], *, dialect: Dialect) -> list[ChatMessage]:
    """The conversation with tool calls and results written as text (see module docstring)."""
    names: dict[str, str] = {}
    out: list[ChatMessage] = []
    merge_next_user = False  # the last output message is a user turn made from results
    for message in messages:
        has_results = bool(message.tool_results)
        if message.role == "assistant":
            for call in message.tool_calls:
                names[call.id] = call.name
            out.append(_rewrite_assistant(message, dialect))
            merge_next_user = False
        elif has_results or message.role == "tool":
            content = _rewrite_results(message, names, dialect)
            if merge_next_user:
                content = [*_sep(out[-1]), *content]
                out[-1] = ChatMessage(role="user", content=_coalesce(content))
            else:
                out.append(ChatMessage(role="user", content=_coalesce(content)))
            merge_next_user = True
        elif message.role == "user" and merge_next_user:
            content = [*_sep(out[-1]), *message.content]
            out[-1] = ChatMessage(role="user", content=_coalesce(content))
            merge_next_user = False
        else:
            out.append(message)
            merge_next_user = False
    return out


def _sep(message: ChatMessage) -> list[ContentPart]:
    """``message``'s parts plus a blank-line text part to separate what follows."""
    return [*message.content, TextPart(text="\n\n")]


def _coalesce(parts: list[ContentPart]) -> list[ContentPart]:
    """Join adjacent plain text parts (no provider data) into one."""
    out: list[ContentPart] = []
    for part in parts:
        last = out[-1] if out else None
        if (
            isinstance(part, TextPart)
            and isinstance(last, TextPart)
            and part.provider_data is None
            and last.provider_data is None
        ):
            out[-1] = TextPart(text=last.text + part.text)
        else:
            out.append(part)
    return out

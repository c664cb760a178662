"""An AG-UI ``RunAgentInput`` -> llmbridge ``ChatMessage``s.

Rules: ``system`` and ``developer`` messages become system messages; ``user`` content is a
string or parts (text, and image / audio / document / video parts whose ``source`` is ``data``
or ``url``: ``llmbridge.ui.media``); an ``assistant`` message keeps its text and its
``toolCalls`` (``function.arguments`` is JSON text: malformed text is kept, flagged in the
call's ``error``); a ``reasoning`` message is a ``ReasoningPart`` of the assistant message that
follows it (its ``encryptedValue`` as the signature); a ``tool`` message answers the call with
its ``toolCallId`` (``error`` set: an error result) and takes that call's name, so a result for
a call no earlier message made is a ``UsageError``; ``activity`` messages are the UI's own and
skipped.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from ..messages import ChatMessage
from ..parts import ReasoningPart, TextPart, ToolCallPart
from .media import bad, field, media_part, need_list

__all__ = ["messages_of_run_input"]


def _content(content: Any, where: str) -> list[Any]:
    if isinstance(content, str):
        return [TextPart(text=content)] if content else []
    out: list[Any] = []
    for i, part in enumerate(need_list(content, where)):
        at = f"{where}[{i}]"
        kind = field(part, "type", str, at)
        if kind == "text":
            out.append(TextPart(text=field(part, "text", str, at)))
            continue
        source = field(part, "source", dict, at)
        value = field(source, "value", str, f"{at}.source")
        media_type = source.get("mimeType")
        if source.get("type") == "data":
            value = f"data:{media_type};base64,{value}"
        elif source.get("type") != "url":
            raise bad(f"{at}.source.type", "only 'data' and 'url' sources can be sent on")
        out.append(media_part(url=value, media_type=media_type, name=None, where=at, kind=kind))
    return out


def _call(call: Any, at: str) -> ToolCallPart:
    function = field(call, "function", dict, at)
    raw = field(function, "arguments", str, f"{at}.function")
    name = field(function, "name", str, f"{at}.function")
    meta = call.get("metadata")
    given = meta.get("llmbridge", {}).get("arguments") if isinstance(meta, dict) else None
    if isinstance(given, dict):  # a freeform tool's call: to_stream kept its arguments here
        return ToolCallPart(
            id=field(call, "id", str, at), name=name, arguments=given, raw_arguments=raw
        )
    try:
        arguments = orjson.loads(raw) if raw.strip() else {}
        error = None if isinstance(arguments, dict) else "arguments are not a JSON object"
    except orjson.JSONDecodeError as exc:
        arguments, error = {}, f"arguments are not JSON: {exc}"
    return ToolCallPart(
        id=field(call, "id", str, at),
        name=name,
        arguments=arguments if error is None else {},
        raw_arguments=raw,
        error=error,
    )


class _Reader:
    def __init__(self) -> None:
        self.out: list[ChatMessage] = []
        self.names: dict[str, str] = {}
        self.reasoning: list[ReasoningPart] = []

    def add(self, message: Any, at: str) -> None:
        role = field(message, "role", str, at)
        if role in ("system", "developer"):
            self.out.append(ChatMessage.system(field(message, "content", str, at)))
        elif role == "user":
            content = _content(message.get("content"), f"{at}.content")
            self.out.append(ChatMessage(role="user", content=content))
        elif role == "reasoning":
            signature = message.get("encryptedValue")
            text = field(message, "content", str, at)
            meta = message.get("metadata")
            kept = meta.get("llmbridge") if isinstance(meta, dict) else None
            kept = kept if isinstance(kept, dict) else {}
            data = kept.get("provider_data")
            part = ReasoningPart(
                text=text,
                signature=signature,
                provider=kept.get("provider"),
                provider_data=data if isinstance(data, dict) else None,
            )
            self.reasoning.append(part)
        elif role == "assistant":
            self._assistant(message, at)
        elif role == "tool":
            self._tool(message, at)
        elif role != "activity":
            raise bad(f"{at}.role", f"not an AG-UI role: {role!r}")

    def _assistant(self, message: dict[str, Any], at: str) -> None:
        text = message.get("content") or ""
        if not isinstance(text, str):
            raise bad(f"{at}.content", "expected a string")
        calls = [
            _call(c, f"{at}.toolCalls[{i}]")
            for i, c in enumerate(need_list(message.get("toolCalls") or [], f"{at}.toolCalls"))
        ]
        self.names.update((c.id, c.name) for c in calls)
        reasoning, self.reasoning = self.reasoning, []
        self.out.append(ChatMessage.assistant(text, tool_calls=calls, reasoning=reasoning))

    def _tool(self, message: dict[str, Any], at: str) -> None:
        call_id = field(message, "toolCallId", str, at)
        if call_id not in self.names:
            raise bad(f"{at}.toolCallId", f"no earlier assistant message made call {call_id!r}")
        error = message.get("error")
        content = _content(message.get("content", ""), f"{at}.content")
        if isinstance(error, str) and error:
            content = content or [TextPart(text=error)]
        result = ChatMessage.tool_result(
            call_id, content, name=self.names[call_id], is_error=bool(error)
        )
        self.out.append(result)


def messages_of_run_input(run_input: Any) -> list[ChatMessage]:
    """The ``ChatMessage``s of a ``RunAgentInput`` dict (its ``messages``, in order)."""
    messages = need_list(field(run_input, "messages", list, "run_input"), "run_input.messages")
    reader = _Reader()
    try:
        for i, message in enumerate(messages):
            reader.add(message, f"messages[{i}]")
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise bad("run_input", f"not a conversation llmbridge takes ({problems})") from exc
    if reader.reasoning:  # reasoning with no answer after it: keep it as an assistant turn
        reader.out.append(ChatMessage.assistant(reasoning=reader.reasoning))
    return reader.out

"""A ``useChat`` request body (AI SDK UI messages with parts) -> llmbridge ``ChatMessage``s.

Rules:

* ``system`` / ``user`` messages: text parts and files (``llmbridge.ui.media``).
* An ``assistant`` message is split at its ``step-start`` parts: each step is one assistant
  ``ChatMessage`` (reasoning, text, tool calls, in order) followed by one ``tool`` message per
  tool part that has an outcome (``output-available``, ``output-error``, ``output-denied``), so
  calls and results are matched by ``toolCallId`` and the history continues on any provider.
* Tool parts still streaming their input are dropped (the model never finished them); reasoning
  keeps the signature, and a call its raw arguments text, that ``to_stream`` put in
  ``providerMetadata.llmbridge`` (so the next request is byte for byte the same); a
  ``data-llmbridge-item`` part is given back as the ``RawPart`` it came from.
* Parts this module does not know (sources, other data parts, custom) are skipped.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..messages import ChatMessage
from ..parts import RawPart, ReasoningPart, TextPart, ToolCallPart
from ..tools.results import to_content
from .media import bad, field, media_part, need_list

__all__ = ["messages_of_body"]

_ROLES = ("system", "user", "assistant")
_OUTCOMES = ("output-available", "output-error", "output-denied")


def _llmbridge_meta(part: dict[str, Any], key: str = "providerMetadata") -> dict[str, Any]:
    meta = part.get(key)
    inner = meta.get("llmbridge") if isinstance(meta, dict) else None
    return inner if isinstance(inner, dict) else {}


def _user_parts(parts: list[Any], where: str) -> list[Any]:
    out: list[Any] = []
    for i, part in enumerate(parts):
        at = f"{where}[{i}]"
        kind = field(part, "type", str, at)
        if kind == "text":
            out.append(TextPart(text=field(part, "text", str, at)))
        elif kind == "file":
            url = field(part, "url", str, at)
            media_type = part.get("mediaType")
            name = part.get("filename")
            out.append(media_part(url=url, media_type=media_type, name=name, where=at))
    return out


def _tool_name(part: dict[str, Any], kind: str, at: str) -> str:
    if kind == "dynamic-tool":
        return str(field(part, "toolName", str, at))
    return kind[len("tool-") :]


def _result(part: dict[str, Any], call: ToolCallPart, state: str, at: str) -> ChatMessage:
    if state == "output-available":
        return ChatMessage.tool_result(call.id, to_content(part.get("output")), name=call.name)
    text = part.get("errorText") if state == "output-error" else "The user denied this call."
    if not isinstance(text, str):
        raise bad(f"{at}.errorText", "expected a string")
    return ChatMessage.tool_result(call.id, text, name=call.name, is_error=True)


class _Steps:
    """The assistant and tool messages of one UI assistant message, step by step."""

    def __init__(self) -> None:
        self.out: list[ChatMessage] = []
        self.parts: list[Any] = []
        self.results: list[ChatMessage] = []

    def cut(self) -> None:
        if self.parts:
            self.out.append(ChatMessage(role="assistant", content=self.parts))
        self.out.extend(self.results)
        self.parts, self.results = [], []

    def add(self, part: Any, at: str) -> None:
        kind = field(part, "type", str, at)
        if kind == "step-start":
            self.cut()
        elif kind == "text":
            text = field(part, "text", str, at)
            if text:
                self.parts.append(TextPart(text=text))
        elif kind == "reasoning":
            meta = _llmbridge_meta(part)
            self.parts.append(
                ReasoningPart(
                    text=field(part, "text", str, at),
                    signature=meta.get("signature"),
                    provider=meta.get("provider"),
                    provider_data=meta.get("provider_data"),
                )
            )
        elif kind == "data-llmbridge-item":
            data = field(part, "data", dict, at)
            provider = data.get("provider")
            if isinstance(provider, str) and isinstance(data.get("data"), dict):
                self.parts.append(RawPart(provider=provider, data=data["data"]))
        elif kind.startswith("tool-") or kind == "dynamic-tool":
            self._tool(part, kind, at)

    def _tool(self, part: dict[str, Any], kind: str, at: str) -> None:
        state = field(part, "state", str, at)
        if state == "input-streaming":
            return
        call_id = field(part, "toolCallId", str, at)
        arguments = part.get("input")
        meta = _llmbridge_meta(part, "callProviderMetadata")
        raw = meta.get("raw_arguments")
        call = ToolCallPart(
            id=call_id,
            name=_tool_name(part, kind, at),
            arguments=arguments if isinstance(arguments, dict) else {},
            raw_arguments=raw if isinstance(raw, str) else None,
            provider_data=meta.get("provider_data"),
        )
        self.parts.append(call)
        if state in _OUTCOMES:
            self.results.append(_result(part, call, state, at))


def _message(message: Any, at: str) -> list[ChatMessage]:
    role = field(message, "role", str, at)
    if role not in _ROLES:
        raise bad(f"{at}.role", f"expected one of {', '.join(_ROLES)}, got {role!r}")
    parts = need_list(field(message, "parts", list, at), f"{at}.parts")
    if role == "assistant":
        steps = _Steps()
        for i, part in enumerate(parts):
            steps.add(part, f"{at}.parts[{i}]")
        steps.cut()
        return steps.out
    content = _user_parts(parts, f"{at}.parts")
    if role == "system":
        return [ChatMessage.system("".join(p.text for p in content if isinstance(p, TextPart)))]
    return [ChatMessage(role="user", content=content)]


def messages_of_body(body: Any) -> list[ChatMessage]:
    """The ``ChatMessage``s of a ``useChat`` request body (a dict with ``messages``)."""
    messages = need_list(field(body, "messages", list, "body"), "body.messages")
    out: list[ChatMessage] = []
    try:
        for i, message in enumerate(messages):
            out.extend(_message(message, f"messages[{i}]"))
    except ValidationError as exc:  # a part pydantic refuses (e.g. a non-dict provider_data)
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise bad("body", f"not a conversation llmbridge takes ({problems})") from exc
    return out

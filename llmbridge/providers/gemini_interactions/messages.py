"""Chat messages → the Interactions ``input`` steps and ``system_instruction`` (pure).

Follows ``google.genai`` Interactions ``UserInputStep``, ``ModelOutputStep``, ``ThoughtStep``,
``FunctionCallStep``, ``FunctionResultStep`` and ``Content`` (revision 2026-05-20). Rules:

* system messages → ``system_instruction`` (their texts joined by blank lines);
* a user message → one ``user_input`` step of contents: ``text``; images, documents and audio
  as ``image`` / ``document`` / ``audio`` with base64 ``data`` (bytes or a ``data:`` URL) or a
  ``uri`` (other URLs), each with its ``mime_type`` where known;
* an assistant message, in order: runs of text → one ``model_output`` step each; this
  provider's reasoning → a ``thought`` step (``signature``, the text as a ``summary``); tool
  calls → ``function_call`` steps (``id``, ``name``, ``arguments``); this provider's
  ``RawPart`` (a built-in tool step the decoder kept) → that step as it was received;
* tool results → ``function_result`` steps (``call_id``, the call's ``name``, ``result`` as the
  text, or a list of contents when images or documents come with it, ``is_error``);
* other providers' reasoning and items never reach here: ``providers/history.py`` leaves them
  out first, with a warning (``request.py``).
"""

from __future__ import annotations

from typing import Any

from ...messages import ChatMessage
from ...parts import (
    AudioPart,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["encode_input", "media_content"]


def media_content(part: ImagePart | DocumentPart | AudioPart) -> dict[str, Any]:
    """An ``image`` / ``document`` / ``audio`` content: base64 ``data`` or a ``uri``."""
    out: dict[str, Any] = {"type": part.type}
    if part.data is not None:
        out["data"] = part.base64_data
    elif part.url is not None and part.url.startswith("data:") and ";base64," in part.url:
        head, _, data = part.url.partition(";base64,")
        out["data"] = data
        if head[5:]:
            out["mime_type"] = head[5:]
    else:
        out["uri"] = part.url
    if part.media_type and "mime_type" not in out:
        out["mime_type"] = part.media_type
    return out


def _content(part: object) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart | DocumentPart | AudioPart):
        return media_content(part)
    return None


class _Encoder:
    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self.call_names: dict[str, str] = {}
        self.steps: list[dict[str, Any]] = []

    def user(self, message: ChatMessage) -> None:
        contents: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, ToolResultPart):
                self.result(part)
                continue
            content = _content(part)
            if content is not None:
                contents.append(content)
        if contents:
            self.steps.append({"type": "user_input", "content": contents})

    def result(self, part: ToolResultPart) -> None:
        extra = [c for p in part.content if (c := _content(p)) is not None]
        result: Any = part.text
        if any(c["type"] != "text" for c in extra):
            result = extra
        step: dict[str, Any] = {"type": "function_result", "call_id": part.tool_call_id}
        name = part.name or self.call_names.get(part.tool_call_id)
        if name:
            step["name"] = name
        step["result"] = result
        if part.is_error:
            step["is_error"] = True
        self.steps.append(step)

    def assistant(self, message: ChatMessage) -> None:
        texts: list[dict[str, Any]] = []

        def flush() -> None:
            if texts:
                self.steps.append({"type": "model_output", "content": list(texts)})
                texts.clear()

        for part in message.content:
            if isinstance(part, TextPart):
                if part.text:
                    texts.append({"type": "text", "text": part.text})
                continue
            if isinstance(part, ImagePart | DocumentPart | AudioPart):
                texts.append(media_content(part))
                continue
            flush()
            if isinstance(part, ToolCallPart):
                self.call_names[part.id] = part.name
                self.steps.append(
                    {"type": "function_call", "id": part.id, "name": part.name,
                     "arguments": part.arguments}
                )  # fmt: skip
            elif isinstance(part, ToolResultPart):
                self.result(part)
            elif isinstance(part, ReasoningPart) and part.provider == self.provider:
                thought: dict[str, Any] = {"type": "thought"}
                if part.signature:
                    thought["signature"] = part.signature
                if part.text:
                    thought["summary"] = [{"type": "text", "text": part.text}]
                if len(thought) > 1:
                    self.steps.append(thought)
            elif isinstance(part, RawPart) and part.provider == self.provider:
                self.steps.append(dict(part.data))
        flush()


def encode_input(
    messages: list[ChatMessage], *, provider: str
) -> tuple[str | None, list[dict[str, Any]]]:
    """(``system_instruction`` or None, the ``input`` steps) for ``messages``."""
    encoder = _Encoder(provider=provider)
    system: list[str] = []
    for message in messages:
        if message.role == "system":
            system.extend(p.text for p in message.content if isinstance(p, TextPart))
        elif message.role == "assistant":
            encoder.assistant(message)
        else:  # user and tool messages
            encoder.user(message)
    return ("\n\n".join(system) if system else None), encoder.steps

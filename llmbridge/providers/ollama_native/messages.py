"""``ChatMessage``s → ``/api/chat`` ``messages`` (pure).

Follows ``Message`` of https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-history
and the ``ollama`` client's ``Message`` type. Rules:

* Every message is ``{"role", "content": <text>}``; images go beside the text as ``images``
  (base64, no ``data:`` prefix: Ollama takes only the bytes, so an image by ``http(s)`` URL is an
  ``UnsupportedFeatureError``; a ``data:`` URL is unwrapped). A text document (``text/*``,
  JSON) is sent as its text; other documents and audio are an ``UnsupportedFeatureError``.
  Cache points are dropped (Ollama keeps its own KV cache).
* Assistant turns: text in ``content``, this provider's own reasoning in ``thinking`` (other
  providers' reasoning was already left out by ``history.py``), tool calls as
  ``tool_calls: [{"function": {"name", "arguments": {…}}}]`` (Ollama takes arguments as an
  object and no id: a call whose arguments did not parse is sent with ``{}``).
* Each tool result is its own ``{"role": "tool", "content", "tool_name"}`` message; the name is
  the result's own, else the name of the call it answers. Images in a result go in its
  ``images``.
"""

from __future__ import annotations

import base64
from typing import Any

from ...errors import UnsupportedFeatureError
from ...messages import ChatMessage
from ...parts import (
    AudioPart,
    CachePoint,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["encode_messages"]

_TEXT_TYPES = ("text/", "application/json", "application/xml")


def _image(part: ImagePart, provider: str) -> str:
    if part.data is not None:
        return part.base64_data
    url = part.url or ""
    if url.startswith("data:") and ";base64," in url:
        return url.partition(";base64,")[2]
    raise UnsupportedFeatureError(
        f"{provider} takes images as bytes only (not by URL {url[:60]!r}): pass "
        "ImagePart(data=..., media_type=...)",
        provider=provider,
    )


def _document(part: DocumentPart, provider: str) -> str:
    kind = part.media_type or ""
    data = part.data
    if data is None and (part.url or "").startswith("data:") and ";base64," in (part.url or ""):
        data = base64.b64decode((part.url or "").partition(";base64,")[2])
    if data is not None and kind.startswith(_TEXT_TYPES):
        text = data.decode("utf-8", "replace")
        return f"{part.name}:\n{text}" if part.name else text
    raise UnsupportedFeatureError(
        f"{provider} takes no {kind or 'URL'} documents, only text ones (text/*, JSON)",
        provider=provider,
    )


def _user(message: ChatMessage, provider: str) -> dict[str, Any]:
    texts: list[str] = []
    images: list[str] = []
    for part in message.content:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ImagePart):
            images.append(_image(part, provider))
        elif isinstance(part, DocumentPart):
            texts.append(_document(part, provider))
        elif isinstance(part, AudioPart):
            raise UnsupportedFeatureError(f"{provider} takes no audio", provider=provider)
    out: dict[str, Any] = {"role": message.role, "content": "\n".join(texts)}
    if images:
        out["images"] = images
    return out


def _assistant(message: ChatMessage, provider: str) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": message.text}
    thinking = "".join(
        p.text for p in message.content if isinstance(p, ReasoningPart) and p.provider == provider
    )
    if thinking:
        out["thinking"] = thinking
    calls = [
        {"function": {"name": call.name, "arguments": call.arguments}}
        for call in message.content
        if isinstance(call, ToolCallPart)
    ]
    if calls:
        out["tool_calls"] = calls
    return out


def _tool_results(
    message: ChatMessage, names: dict[str, str], provider: str
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in message.content:
        if not isinstance(part, ToolResultPart):
            continue
        texts: list[str] = []
        images: list[str] = []
        for item in part.content:
            if isinstance(item, TextPart):
                texts.append(item.text)
            elif isinstance(item, ImagePart):
                images.append(_image(item, provider))
            else:
                texts.append(_document(item, provider))
        result: dict[str, Any] = {"role": "tool", "content": "\n".join(texts)}
        name = part.name or names.get(part.tool_call_id)
        if name:
            result["tool_name"] = name
        if images:
            result["images"] = images
        out.append(result)
    return out


def encode_messages(messages: list[ChatMessage], *, provider: str) -> list[dict[str, Any]]:
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            for part in message.content:
                if isinstance(part, ToolCallPart):
                    names[part.id] = part.name
            out.append(_assistant(message, provider))
        elif message.tool_results:
            out.extend(_tool_results(message, names, provider))
            rest = [
                p
                for p in message.content
                if not isinstance(p, ToolResultPart | CachePoint | RawPart)
            ]
            if rest:
                out.append(_user(message.model_copy(update={"content": rest}), provider))
        else:
            out.append(_user(message, provider))
    return out

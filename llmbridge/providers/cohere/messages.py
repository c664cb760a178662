"""``ChatMessage``s → ``/v2/chat`` ``messages`` and ``documents`` (pure).

Follows ``ChatMessageV2`` of the ``cohere`` SDK (https://docs.cohere.com/reference/chat).
Rules:

* system → ``{"role": "system", "content": <text>}``.
* user → ``content`` as a string when it is only text, else a list of ``{"type": "text"}`` and
  ``{"type": "image_url", "image_url": {"url"}}`` items (bytes as a ``data:`` URL). A text
  document (``text/*``, JSON) goes to the request's top-level ``documents`` (``{"id", "data":
  {"title", "text"}}``, ids ``doc:0``, ``doc:1``… as Cohere names them), which its citations then
  point at; other documents and audio are an ``UnsupportedFeatureError``.
* assistant → ``content`` items (this provider's own reasoning first, as ``{"type":
  "thinking"}``, then the text), ``tool_plan`` (the ``RawPart`` the decoder kept), and
  ``tool_calls`` ``[{"id", "type": "function", "function": {"name", "arguments": <JSON text>}}]``.
* each tool result → ``{"role": "tool", "tool_call_id", "content": [{"type": "text", "text"}]}``
  (a document in a result goes as ``{"type": "document", "document": {"data": {…}}}``). Cohere
  takes no images in tool results: each is replaced by a short text note (``image_note``), and
  ``request.py`` says so in a warning.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from ...errors import UnsupportedFeatureError
from ...messages import ChatMessage
from ...parts import (
    AudioPart,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
)

__all__ = ["encode_messages", "image_note", "result_images"]

_TEXT_TYPES = ("text/", "application/json", "application/xml")


def _document_data(part: DocumentPart, provider: str) -> dict[str, Any]:
    kind = part.media_type or ""
    data = part.data
    url = part.url or ""
    if data is None and url.startswith("data:") and ";base64," in url:
        data = base64.b64decode(url.partition(";base64,")[2])
    if data is None or not kind.startswith(_TEXT_TYPES):
        raise UnsupportedFeatureError(
            f"{provider} takes text documents only (text/*, JSON), not {kind or url[:60]!r}",
            provider=provider,
        )
    out = {"text": data.decode("utf-8", "replace")}
    if part.name:
        out = {"title": part.name, **out}
    return out


def _user(
    message: ChatMessage, provider: str, documents: list[dict[str, Any]]
) -> dict[str, Any] | None:
    items: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            items.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            items.append({"type": "image_url", "image_url": {"url": part.data_url}})
        elif isinstance(part, DocumentPart):
            data = _document_data(part, provider)
            documents.append({"id": f"doc:{len(documents)}", "data": data})
        elif isinstance(part, AudioPart):
            raise UnsupportedFeatureError(f"{provider} takes no audio", provider=provider)
    if not items:
        return None
    if all(item["type"] == "text" for item in items):
        return {"role": message.role, "content": "".join(item["text"] for item in items)}
    return {"role": message.role, "content": items}


def _assistant(message: ChatMessage, provider: str) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant"}
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": p.text}
        for p in message.content
        if isinstance(p, ReasoningPart) and p.provider == provider and p.text
    ]
    if message.text:
        content.append({"type": "text", "text": message.text})
    plan = "".join(
        str(p.data.get("tool_plan", ""))
        for p in message.content
        if isinstance(p, RawPart) and p.provider == provider and p.data.get("type") == "tool_plan"
    )
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": call.raw_arguments
                if call.raw_arguments is not None and not call.error
                else orjson.dumps(call.arguments).decode(),
            },
        }
        for call in message.tool_calls
    ]
    if plan:
        out["tool_plan"] = plan
    if calls:
        out["tool_calls"] = calls
    if content or not calls:
        out["content"] = content
    return out


def image_note(part: ImagePart) -> str:
    """What the model reads in place of an image in a tool result."""
    size = f", {len(part.data):,} bytes" if part.data is not None else ""
    return f"[image omitted ({part.media_type or 'image'}{size}): Cohere takes no images here]"


def result_images(messages: list[ChatMessage]) -> int:
    """How many images the tool results of ``messages`` hold."""
    return sum(
        isinstance(p, ImagePart) for m in messages for r in m.tool_results for p in r.content
    )


def _tool_result(part: ToolResultPart, provider: str) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for item in part.content:
        if isinstance(item, TextPart):
            items.append({"type": "text", "text": item.text})
        elif isinstance(item, DocumentPart):
            items.append({"type": "document", "document": {"data": _document_data(item, provider)}})
        else:
            items.append({"type": "text", "text": image_note(item)})
    if not items:
        items.append({"type": "text", "text": ""})
    return {"role": "tool", "tool_call_id": part.tool_call_id, "content": items}


def encode_messages(
    messages: list[ChatMessage], *, provider: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(``messages``, ``documents``) for ``messages``."""
    out: list[dict[str, Any]] = []
    documents: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message, provider))
            continue
        out.extend(_tool_result(p, provider) for p in message.tool_results)
        user = _user(message, provider, documents)
        if user is not None:
            out.append(user)
    return out, documents

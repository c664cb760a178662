"""MCP content blocks to llmbridge parts and messages (tool results, prompts, sampling).

Rules: nothing is dropped. ``text`` → ``TextPart``; ``image`` → ``ImagePart``; ``audio`` →
``AudioPart``; a ``resource_link`` → a ``TextPart`` the model can read (name, URI, media type,
description); an embedded ``resource`` → ``resource_part``: its text (headed by its URI), or for
a blob by media type: ``image/*`` → ``ImagePart``, ``audio/*`` → ``AudioPart``, PDF and office
documents → ``DocumentPart``, text (``text/*``, JSON, XML, YAML, SVG...) that is valid UTF-8 →
``TextPart``; any other binary → a text note with the URI, media type and size (the bytes stay
with the app: ``MCPResourceContents.data``). Unknown block types are kept as their JSON text. Works on the SDK's models
and on plain dicts (camelCase and snake_case fields alike).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import orjson

from ..messages import ChatMessage
from ..parts import AudioPart, ContentPart, DocumentPart, ImagePart, TextPart

__all__ = [
    "MCPPart",
    "content_parts",
    "decoded_base64",
    "field_of",
    "is_text_type",
    "prompt_messages",
    "resource_part",
]

MCPPart: TypeAlias = TextPart | ImagePart | AudioPart | DocumentPart


def field_of(obj: Any, *names: str) -> Any:
    """The first of ``names`` set on a model or dict."""
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _media(data: bytes, media: str) -> MCPPart:
    if media.startswith("image/"):
        return ImagePart(data=data, media_type=media)
    if media.startswith("audio/"):
        return AudioPart(data=data, media_type=media)
    return DocumentPart(data=data, media_type=media)


def _link_text(block: Any) -> str:
    name = field_of(block, "title", "name") or "resource"
    media = field_of(block, "mimeType", "mime_type")
    about = field_of(block, "description")
    size = field_of(block, "size")
    extra = ", ".join(x for x in (media, f"{size} bytes" if size else None) if x)
    text = f"[resource link] {name}: {field_of(block, 'uri')}"
    text += f" ({extra})" if extra else ""
    return text + (f" — {about}" if about else "")


_DOCUMENTS = frozenset(
    {
        "application/pdf",
        "application/rtf",
        "application/msword",
        "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint",
    }
)
_DOCUMENT_PREFIXES = ("application/vnd.openxmlformats-officedocument.", "application/vnd.oasis.")
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/javascript",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/x-ndjson",
    }
)


def is_text_type(media: str) -> bool:
    """Whether bytes of media type ``media`` are text a model reads as it is."""
    media = media.split(";", 1)[0].strip().lower()
    return (
        media.startswith("text/")
        or media in _TEXT_TYPES
        or media.endswith(("+json", "+xml", "+yaml"))
    )


def resource_part(
    *, uri: str, media_type: str | None, text: str | None, data: bytes | None, label: bool = True
) -> MCPPart:
    """One resource's contents as a part (the module's rules); ``label``: head text with the
    URI so the model knows where it came from."""
    head = f"[resource {uri}]\n" if label else ""
    if text is not None:
        return TextPart(text=head + text)
    media = (media_type or "").split(";", 1)[0].strip().lower()
    if data is None:
        return TextPart(text=f"[resource {uri}: its data is not valid base64, not shown]")
    if media.startswith(("image/", "audio/")) and not media.endswith("+xml"):  # SVG: text
        return _media(data, media)
    if media in _DOCUMENTS or media.startswith(_DOCUMENT_PREFIXES):
        return DocumentPart(data=data, media_type=media)
    if is_text_type(media):
        try:
            return TextPart(text=head + data.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    return TextPart(
        text=f"[resource {uri}: {media or 'binary'}, {len(data)} bytes, kept by the app, not shown]"
    )


def _resource(block: Any) -> MCPPart:
    res = field_of(block, "resource") or {}
    text = field_of(res, "text")
    return resource_part(
        uri=str(field_of(res, "uri")),
        media_type=field_of(res, "mimeType", "mime_type"),
        text=None if text is None else str(text),
        data=None if text is not None else decoded_base64(field_of(res, "blob")),
    )


def decoded_base64(data: Any) -> bytes | None:
    """Base64 as servers send it (padding sometimes left off, line breaks sometimes left in);
    ``None`` for text that is not base64, so one bad block does not fail the whole result."""
    text = "".join(str(data or "").split())
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (ValueError, binascii.Error):
        return None


def _one(block: Any) -> MCPPart:
    kind = field_of(block, "type")
    if kind == "text":
        return TextPart(text=str(field_of(block, "text") or ""))
    if kind in ("image", "audio"):
        data = decoded_base64(field_of(block, "data"))
        if data is None:
            return TextPart(text=f"[{kind}: its data is not valid base64, not shown]")
        default = "image/png" if kind == "image" else "audio/wav"
        return _media(data, str(field_of(block, "mimeType", "mime_type") or default))
    if kind == "resource_link":
        return TextPart(text=_link_text(block))
    if kind == "resource":
        return _resource(block)
    dump = block.model_dump(mode="json", by_alias=True) if hasattr(block, "model_dump") else block
    return TextPart(text=orjson.dumps(dump, default=str).decode())


def content_parts(blocks: Sequence[Any] | Any) -> list[MCPPart]:
    """Parts for MCP content blocks (a list, or one block as sampling and prompts send)."""
    if blocks is None:
        return []
    if not isinstance(blocks, Sequence) or isinstance(blocks, (str, bytes)):
        blocks = [blocks]
    return [_one(block) for block in blocks]


def prompt_messages(result: Any) -> list[ChatMessage]:
    """A ``prompts/get`` result (or sampling messages) as ``ChatMessage``s, roles kept."""
    messages = field_of(result, "messages") or []
    out: list[ChatMessage] = []
    for message in messages:
        parts: list[ContentPart] = list(content_parts(field_of(message, "content")))
        if field_of(message, "role") == "assistant":
            out.append(ChatMessage(role="assistant", content=parts))
        else:
            out.append(ChatMessage(role="user", content=parts))
    return out

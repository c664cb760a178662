"""Chat messages → Converse ``system`` + ``messages`` content blocks (pure).

Follows the ``Message`` / ``ContentBlock`` shapes of botocore's ``bedrock-runtime`` service
model (2023-09-30) and https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html.
Rules:

* system messages → ``system`` blocks (``text``, ``cachePoint``); user → role ``user``;
  assistant → ``assistant``; tool results → ``toolResult`` blocks in a ``user`` turn.
  Consecutive turns of one role are merged (Converse wants them alternating).
* Blobs travel base64 in the JSON body (REST-JSON). Images and documents: bytes or a
  ``data:`` URL → ``source.bytes``; an ``s3://`` URL → ``source.s3Location``; any other URL is
  an ``UnsupportedFeatureError`` (Bedrock does not fetch URLs). Audio likewise.
* A document needs a ``name`` of letters, digits, single spaces, hyphens, parentheses and
  brackets (the API's rule): ``DocumentPart.name`` cleaned that way, else ``document-<n>``.
* Tool calls → ``toolUse`` (input as the parsed object). Tool results → ``toolResult`` with
  ``status: error`` for errors; text that is a JSON object goes as ``json`` content (unless the
  ``tool_results_as_text`` option), other text as ``text``; images and documents as such.
* Reasoning of this provider → ``reasoningContent``: ``reasoningText`` (text + signature) or
  ``redactedContent`` (the opaque bytes the decoder kept, base64). Other providers' reasoning
  was left out by ``providers/history.py``.
* ``CachePoint`` → ``{"cachePoint": {"type": "default"}}`` (a ``ttl`` rounded up to ``5m`` or
  ``1h``, the lifetimes the API offers); ``RawPart`` of this provider (server-run tool blocks) is sent as the block it is.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

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

__all__ = ["REDACTED", "cache_point", "encode_messages"]

REDACTED = "redacted_content"
"""``ReasoningPart.provider_data`` key holding a redacted block's bytes (base64)."""

_ROLES = {"user": "user", "assistant": "assistant", "tool": "user"}
_DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
_AUDIO_FORMATS = {
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/flac": "flac",
    "audio/ogg": "ogg",
    "audio/aac": "aac",
    "audio/webm": "webm",
}
_NAME_BAD = re.compile(r"[^A-Za-z0-9\s\-()\[\]]")


def cache_point(part: CachePoint) -> dict[str, Any]:
    """``{"cachePoint": ...}``; a ``ttl`` is rounded up to a lifetime Bedrock offers (5 min, 1 h)."""
    point: dict[str, Any] = {"type": "default"}
    if part.ttl is not None:
        point["ttl"] = "5m" if part.ttl <= 300 else "1h"
    return {"cachePoint": point}


def _source(
    part: ImagePart | DocumentPart | AudioPart, provider: str
) -> tuple[str, dict[str, Any]]:
    """(media type, ``source``) of a media part."""
    if part.data is not None:
        return part.media_type or "", {"bytes": part.base64_data}
    url = part.url or ""
    if url.startswith("data:") and ";base64," in url:
        head, _, data = url.partition(";base64,")
        return head[5:], {"bytes": data}
    if url.startswith("s3://"):
        return part.media_type or "", {"s3Location": {"uri": url}}
    raise UnsupportedFeatureError(
        f"Bedrock takes {part.type}s as bytes or s3:// URIs, not URLs it would fetch ({url[:80]!r})",
        provider=provider,
    )


def _format(
    media_type: str, table: dict[str, str], url: str | None, kind: str, provider: str
) -> str:
    found = table.get(media_type.lower().split(";")[0].strip())
    if found is None and url:  # an s3:// object: its extension
        ext = url.rsplit(".", 1)[-1].lower()
        found = {"jpg": "jpeg"}.get(ext, ext) if ext in {*table.values(), "jpg"} else None
    if found is None:
        raise UnsupportedFeatureError(
            f"Bedrock takes {kind}s as {', '.join(sorted(set(table.values())))}; "
            f"not {media_type or url!r}",
            provider=provider,
        )
    return found


class _Encoder:
    def __init__(self, *, provider: str, results_as_text: bool) -> None:
        self.provider = provider
        self.results_as_text = results_as_text
        self.documents = 0

    def media(self, part: ImagePart | DocumentPart | AudioPart) -> dict[str, Any]:
        media_type, source = _source(part, self.provider)
        if isinstance(part, ImagePart):
            fmt = _format(media_type, _IMAGE_FORMATS, part.url, "image", self.provider)
            return {"image": {"format": fmt, "source": source}}
        if isinstance(part, AudioPart):
            fmt = _format(media_type, _AUDIO_FORMATS, part.url, "audio clip", self.provider)
            return {"audio": {"format": fmt, "source": source}}
        self.documents += 1
        fmt = _format(media_type, _DOCUMENT_FORMATS, part.url, "document", self.provider)
        name = " ".join(_NAME_BAD.sub(" ", part.name or "").split())[:200]
        return {
            "document": {
                "format": fmt,
                "name": name or f"document-{self.documents}",
                "source": source,
            }
        }

    def result(self, part: ToolResultPart) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for item in part.content:
            if isinstance(item, TextPart):
                content.append(self.result_text(item.text))
            else:
                content.append(self.media(item))
        if not content:
            content.append({"text": ""})
        block: dict[str, Any] = {"toolUseId": part.tool_call_id, "content": content}
        if part.is_error:
            block["status"] = "error"
        return {"toolResult": block}

    def result_text(self, text: str) -> dict[str, Any]:
        if not self.results_as_text and text.lstrip().startswith("{"):
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                return {"json": value}
        return {"text": text}

    def reasoning(self, part: ReasoningPart) -> dict[str, Any] | None:
        redacted = (part.provider_data or {}).get(REDACTED)
        if isinstance(redacted, str):
            return {"reasoningContent": {"redactedContent": redacted}}
        if not part.text and not part.signature:
            return None
        text: dict[str, Any] = {"text": part.text}
        if part.signature:
            text["signature"] = part.signature
        return {"reasoningContent": {"reasoningText": text}}

    def block(self, part: Any) -> dict[str, Any] | None:
        if isinstance(part, TextPart):
            return {"text": part.text} if part.text else None
        if isinstance(part, ImagePart | DocumentPart | AudioPart):
            return self.media(part)
        if isinstance(part, ToolCallPart):
            return {"toolUse": {"toolUseId": part.id, "name": part.name, "input": part.arguments}}
        if isinstance(part, ToolResultPart):
            return self.result(part)
        if isinstance(part, CachePoint):
            return cache_point(part)
        if isinstance(part, ReasoningPart):
            return self.reasoning(part) if part.provider == self.provider else None
        if isinstance(part, RawPart) and part.provider == self.provider:
            return dict(part.data)
        return None


def encode_messages(
    messages: list[ChatMessage], *, provider: str, results_as_text: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(``system`` blocks, ``messages``) for ``messages``."""
    encoder = _Encoder(provider=provider, results_as_text=results_as_text)
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            for part in message.content:
                if isinstance(part, TextPart) and part.text:
                    system.append({"text": part.text})
                elif isinstance(part, CachePoint):
                    system.append(cache_point(part))
            continue
        blocks = [b for b in map(encoder.block, message.content) if b is not None]
        if not blocks:
            continue
        role = _ROLES[message.role]
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return system, out

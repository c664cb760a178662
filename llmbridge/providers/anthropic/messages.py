"""Chat messages → Anthropic Messages ``system`` and ``messages`` (pure).

Follows https://platform.claude.com/docs/en/api/messages (request ``messages`` / ``system``).
Rules:

* ``system`` is a top-level field: every system message's text goes there (a plain string
  when it is one text without block options, text blocks otherwise). A system message after
  the first turn is moved there too, with a warning.
* Tool results are ``tool_result`` blocks inside a ``user`` turn; consecutive same-role turns
  are merged, and in a user turn the ``tool_result`` blocks come first (API rule).
* Assistant tool calls are ``tool_use`` blocks with an ``input`` object.
* Reasoning goes back only when this provider made it (``ReasoningPart.provider``):
  ``thinking`` with its signature, or ``redacted_thinking`` with its opaque data. Unsigned
  reasoning is dropped (the API rejects it), with a warning; other providers' reasoning never
  gets here (``request.py`` runs ``providers/history.py`` first, which warns about it).
* ``RawPart(provider="anthropic")`` blocks (server tool use and results, MCP, code
  execution, unknown blocks: the decoder's ``ProviderItem`` events) are sent verbatim, where
  they stand in the turn; other providers' raw parts are left out (by ``history.py`` too).
* ``TextPart.provider_data`` may carry ``cache_control`` (and, on assistant text,
  ``citations``); an ``anthropic`` key holds extra block fields merged as given.
* ``DocumentPart`` → a ``document`` block (a PDF as base64 or URL, plain text as a ``text``
  source, ``name`` as its ``title``), in messages and tool results; other document types and
  ``AudioPart`` are an ``UnsupportedFeatureError`` before anything is sent.
* ``CachePoint`` puts ``cache_control`` (ephemeral; ``ttl: 1h`` when asked for more than 5
  minutes) on the block before it, in ``system`` or a turn; past the API's 4 breakpoints the
  earliest are dropped, with a warning.
* Empty text blocks are skipped (the API rejects them), and so are turns left empty.
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

__all__ = [
    "cache_control",
    "encode_document",
    "encode_image",
    "encode_messages",
    "encode_text",
    "limit_cache_points",
]

_API_ROLE = {"user": "user", "tool": "user", "assistant": "assistant"}


def encode_text(part: TextPart, *, role: str) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": part.text}
    data = part.provider_data
    if data:
        if "cache_control" in data:
            block["cache_control"] = data["cache_control"]
        if role == "assistant" and data.get("citations"):
            block["citations"] = data["citations"]
        extra = data.get("anthropic")
        if isinstance(extra, dict):
            block.update(extra)
    return block


def encode_image(part: ImagePart) -> dict[str, Any]:
    if part.data is not None:
        source = {"type": "base64", "media_type": part.media_type, "data": part.base64_data}
    else:
        url = part.url or ""
        head, sep, payload = url.partition(",")
        if url.startswith("data:") and sep and head.endswith(";base64"):
            source = {"type": "base64", "media_type": head[5:-7], "data": payload}
        else:
            source = {"type": "url", "url": url}
    return {"type": "image", "source": source}


def encode_document(part: DocumentPart, *, provider: str) -> dict[str, Any]:
    """A ``document`` block: a PDF (bytes or URL) or plain text; other types are refused."""
    source: dict[str, Any]
    media_type, payload = part.media_type, part.base64_data
    if part.url is not None and part.url.startswith("data:") and ";base64," in part.url:
        head, _, payload = part.url.partition(";base64,")  # a data: URL is data, not a link
        media_type = head[5:]
    if part.url is not None and not part.url.startswith("data:"):
        source = {"type": "url", "url": part.url}
    elif media_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": payload}
    elif media_type == "text/plain":
        text = base64.b64decode(payload).decode("utf-8", "replace")
        source = {"type": "text", "media_type": "text/plain", "data": text}
    else:
        raise UnsupportedFeatureError(
            f"{provider} takes PDF and plain-text documents, not {media_type!r} "
            "(convert it, or send its text as a TextPart)",
            provider=provider,
        )
    block: dict[str, Any] = {"type": "document", "source": source}
    if part.name:
        block["title"] = part.name
    return block


MAX_CACHE_POINTS = 4
"""``cache_control`` breakpoints the API takes in one request (more is a 400)."""


def cache_control(point: CachePoint) -> dict[str, Any]:
    """Anthropic's breakpoint: ephemeral, 5 minutes unless the point asks for longer (1 h)."""
    control: dict[str, Any] = {"type": "ephemeral"}
    if point.ttl is not None and point.ttl > 300:
        control["ttl"] = "1h"
    return control


def _mark(blocks: list[dict[str, Any]], point: CachePoint, warnings: list[str]) -> None:
    if blocks:
        blocks[-1]["cache_control"] = cache_control(point)
    else:
        warnings.append("a CachePoint with nothing before it in its message was ignored")


def limit_cache_points(blocks: list[dict[str, Any]], warnings: list[str]) -> None:
    """Keep the last ``MAX_CACHE_POINTS`` breakpoints (each caches all before it)."""
    marked = [b for b in blocks if "cache_control" in b]
    extra = len(marked) - MAX_CACHE_POINTS
    if extra > 0:
        for block in marked[:extra]:
            del block["cache_control"]
        warnings.append(
            f"Anthropic takes at most {MAX_CACHE_POINTS} cache breakpoints: the first {extra} "
            "CachePoint(s) were dropped (the later ones cache the same prefix and more)"
        )


def _media(part: ImagePart | DocumentPart, provider: str) -> dict[str, Any]:
    if isinstance(part, DocumentPart):
        return encode_document(part, provider=provider)
    return encode_image(part)


def _tool_result(part: ToolResultPart, provider: str) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.tool_call_id}
    content = [
        encode_text(p, role="user") if isinstance(p, TextPart) else _media(p, provider)
        for p in part.content
        if not (isinstance(p, TextPart) and not p.text)
    ]
    if len(content) == 1 and content[0]["type"] == "text" and len(content[0]) == 2:
        block["content"] = content[0]["text"]
    elif content:
        block["content"] = content
    if part.is_error:
        block["is_error"] = True
    return block


def _tool_use(part: ToolCallPart) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_use",
        "id": part.id,
        "name": part.name,
        "input": part.arguments,
    }
    extra = (part.provider_data or {}).get("anthropic")
    if isinstance(extra, dict) and "caller" in extra:
        block["caller"] = extra["caller"]
    return block


def _reasoning(part: ReasoningPart, *, provider_name: str) -> dict[str, Any] | None:
    if part.provider != provider_name:
        return None
    data = part.provider_data or {}
    if data.get("type") == "redacted_thinking" and isinstance(data.get("data"), str):
        return {"type": "redacted_thinking", "data": data["data"]}
    if part.signature:
        return {"type": "thinking", "thinking": part.text, "signature": part.signature}
    return None


def _blocks(
    msg: ChatMessage, *, role: str, provider_name: str, warnings: list[str]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in msg.content:
        if isinstance(part, TextPart):
            if part.text:
                out.append(encode_text(part, role=role))
        elif isinstance(part, ImagePart | DocumentPart):
            out.append(_media(part, provider_name))
        elif isinstance(part, CachePoint):
            _mark(out, part, warnings)
        elif isinstance(part, AudioPart):
            raise UnsupportedFeatureError(
                f"{provider_name} takes no audio input (the Messages API has no audio blocks)",
                provider=provider_name,
            )
        elif isinstance(part, ToolCallPart):
            if role == "assistant":
                out.append(_tool_use(part))
            else:
                warnings.append(f"a tool call in a {msg.role} message was dropped")
        elif isinstance(part, ToolResultPart):
            out.append(_tool_result(part, provider_name))
        elif isinstance(part, ReasoningPart):
            block = _reasoning(part, provider_name=provider_name) if role == "assistant" else None
            if block is not None:
                out.append(block)
            elif part.text or part.signature or part.provider_data:
                warnings.append("reasoning without a signature was not sent back")
        elif isinstance(part, RawPart):
            if part.provider == provider_name:
                out.append(dict(part.data))
            else:
                warnings.append(f"a raw {part.provider!r} block was not sent to {provider_name!r}")
    return out


def encode_messages(
    messages: list[ChatMessage], *, provider_name: str
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]], list[str]]:
    """``(system, messages, warnings)`` for the request body."""
    warnings: list[str] = []
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "system":
            if turns:
                warnings.append("a system message after the first turn was moved to `system`")
            for p in msg.content:
                if isinstance(p, TextPart) and p.text:
                    system.append(encode_text(p, role="system"))
                elif isinstance(p, CachePoint):
                    _mark(system, p, warnings)
            continue
        role = _API_ROLE[msg.role]
        blocks = _blocks(msg, role=role, provider_name=provider_name, warnings=warnings)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:
        if turn["role"] == "user":
            content = turn["content"]
            results = [b for b in content if b.get("type") == "tool_result"]
            if results and len(results) != len(content):
                turn["content"] = results + [b for b in content if b.get("type") != "tool_result"]
    system_field: str | list[dict[str, Any]] | None
    if not system:
        system_field = None
    elif len(system) == 1 and len(system[0]) == 2:
        system_field = system[0]["text"]
    else:
        system_field = system
    return system_field, turns, warnings

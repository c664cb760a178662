"""Chat messages → Gemini ``systemInstruction`` + ``contents`` (pure).

Follows https://ai.google.dev/api/generate-content#v1beta.Content and the thought-signature
rules of https://ai.google.dev/gemini-api/docs/thought-signatures. Rules:

* system messages → ``systemInstruction.parts``; user → role ``user``; assistant → role
  ``model``; tool results → ``functionResponse`` parts in a ``user`` turn. Consecutive turns of
  the same role are merged into one (Gemini wants alternating turns; parallel tool results
  travel together).
* images, documents and audio: bytes or ``data:`` URLs → ``inlineData`` (base64); other URLs
  → ``fileData`` (images and documents in tool results travel in ``functionResponse.parts``).
* tool calls → ``functionCall`` parts with ``id`` only when Gemini gave it (a generated id is
  never sent back) and the ``thoughtSignature`` the model attached, when it came from this
  provider's format. Tool results → ``functionResponse`` matched to their call by id (for the
  name) and carrying the call's id when Gemini gave one; a non-object result is wrapped as
  ``{"result": ...}``, an error as ``{"error": ...}``.
* reasoning from this provider's format goes back as ``thought`` parts with their signature; an
  empty reasoning part that only holds a signature gives it to the next part of the turn (that
  is where the model put it), or stands alone as an empty text part at the end of the turn.
  Reasoning from other providers is dropped (Gemini cannot read it).
* ``RawPart`` of this provider is sent as the part it is, in place (code execution, server
  tool parts: the decoder's ``ProviderItem`` events, their own ``thoughtSignature`` included).
* Gemini 3 validates thought signatures on function calls of the *current turn* (every model
  step since the last user message with ordinary content; a 400 when one is missing): the
  first ``functionCall`` of each such step that carries no signature of this provider (a call
  made by another provider, or by a Gemini 2.x model) gets the documented placeholder
  ``skip_thought_signature_validator`` ("Thought signatures", FAQ: conversations transferred
  from another model, or calls injected by the client). Earlier turns are not validated and are
  sent as they are. ``request.py`` runs ``providers/history.py`` first (other providers'
  reasoning and items are left out there, with a warning).
"""

from __future__ import annotations

import mimetypes
from typing import Any

import orjson

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
from ...tool_calls import GENERATED_ID
from ..history import PLACEHOLDER_SIGNATURE, current_turn_start

__all__ = [
    "NEXT_PART",
    "PLACEHOLDER_SIGNATURE",
    "PLACEMENT",
    "SIGNATURE",
    "encode_messages",
    "media_part",
]

SIGNATURE = "thoughtSignature"
"""``ToolCallPart.provider_data`` key holding the model's thought signature."""

PLACEMENT = "signature_placement"
"""``ReasoningPart.provider_data`` key: ``"next_part"`` when the signature came on the part after."""
NEXT_PART = "next_part"


_ROLES = {"user": "user", "assistant": "model", "tool": "user"}


def media_part(image: ImagePart | DocumentPart | AudioPart) -> dict[str, Any]:
    """An image, document or audio clip: ``inlineData`` for bytes and ``data:`` URLs,
    ``fileData`` for other URLs (Gemini reads each by its MIME type)."""
    if image.data is not None:
        return {"inlineData": {"mimeType": image.media_type, "data": image.base64_data}}
    url = image.url or ""
    if url.startswith("data:") and ";base64," in url:
        head, _, data = url.partition(";base64,")
        return {"inlineData": {"mimeType": head[5:] or "application/octet-stream", "data": data}}
    file_data: dict[str, Any] = {"fileUri": url}
    mime = image.media_type or mimetypes.guess_type(url.split("?", 1)[0])[0]
    if mime:
        file_data["mimeType"] = mime
    return {"fileData": file_data}


class _Encoder:
    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self.call_names: dict[str, str] = {}
        self.generated_ids: set[str] = set()

    def own(self, data: dict[str, Any] | None) -> bool:
        return bool(data) and data.get("provider") == self.provider  # type: ignore[union-attr]

    def call(self, part: ToolCallPart) -> dict[str, Any]:
        self.call_names[part.id] = part.name
        call: dict[str, Any] = {"name": part.name, "args": part.arguments}
        data = part.provider_data or {}
        if data.get(GENERATED_ID):
            self.generated_ids.add(part.id)
        else:
            call["id"] = part.id
        out: dict[str, Any] = {"functionCall": call}
        if self.own(data) and isinstance(data.get(SIGNATURE), str):
            out[SIGNATURE] = data[SIGNATURE]
        return out

    def result(self, part: ToolResultPart) -> dict[str, Any]:
        text = part.text
        if part.is_error:
            response: dict[str, Any] = {"error": text}
        else:
            try:
                value: Any = orjson.loads(text) if text.strip() else text
            except orjson.JSONDecodeError:
                value = text
            response = value if isinstance(value, dict) else {"result": value}
        name = part.name or self.call_names.get(part.tool_call_id, part.tool_call_id)
        body: dict[str, Any] = {"name": name, "response": response}
        if part.tool_call_id not in self.generated_ids:
            body["id"] = part.tool_call_id
        images = [media_part(p) for p in part.content if isinstance(p, ImagePart | DocumentPart)]
        if images:
            body["parts"] = images
        return {"functionResponse": body}

    @staticmethod
    def _attach(out: dict[str, Any], pending: str | None, parts: list[dict[str, Any]]) -> None:
        """Give a waiting signature to ``out``; if it has its own, the waiting one stands alone."""
        if pending is None:
            return
        if SIGNATURE in out:
            parts.append({"text": "", SIGNATURE: pending})
        else:
            out[SIGNATURE] = pending

    def message_parts(self, message: ChatMessage) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        pending: str | None = None  # a signature waiting for the next part
        for part in message.content:
            out: dict[str, Any] | None = None
            if isinstance(part, TextPart):
                out = {"text": part.text}
            elif isinstance(part, ImagePart | DocumentPart | AudioPart):
                out = media_part(part)
            elif isinstance(part, ToolCallPart):
                out = self.call(part)
            elif isinstance(part, ToolResultPart):
                out = self.result(part)
            elif isinstance(part, ReasoningPart):
                if part.provider != self.provider:
                    continue
                for_next = not part.text or _for_next_part(part)
                if part.text:
                    out = {"text": part.text, "thought": True}
                    if part.signature and not for_next:
                        out[SIGNATURE] = part.signature
                if part.signature and for_next:
                    if out is not None:
                        self._attach(out, pending, parts)
                        parts.append(out)
                        out, pending = None, None
                    if pending:
                        parts.append({"text": "", SIGNATURE: pending})
                    pending = part.signature
                    continue
            elif isinstance(part, RawPart):
                if part.provider != self.provider:
                    continue
                out = dict(part.data)
            if out is None:
                continue
            self._attach(out, pending, parts)
            pending = None
            parts.append(out)
        if pending:
            parts.append({"text": "", SIGNATURE: pending})
        return parts


def _for_next_part(part: ReasoningPart) -> bool:
    data = part.provider_data or {}
    return data.get(PLACEMENT) == NEXT_PART


def _sign_first_call(parts: list[dict[str, Any]]) -> None:
    for part in parts:
        if "functionCall" in part:
            part.setdefault(SIGNATURE, PLACEHOLDER_SIGNATURE)
            return


def encode_messages(
    messages: list[ChatMessage], *, provider: str, placeholder_signatures: bool = False
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(``systemInstruction`` or None, ``contents``) for ``messages``; with
    ``placeholder_signatures`` (Gemini 3), unsigned calls of the current turn get the
    placeholder."""
    encoder = _Encoder(provider=provider)
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    turn_start = current_turn_start(messages) if placeholder_signatures else len(messages)
    for index, message in enumerate(messages):
        if message.role == "system":
            system.extend({"text": p.text} for p in message.content if isinstance(p, TextPart))
            continue
        parts = encoder.message_parts(message)
        if not parts:
            continue
        if message.role == "assistant" and index > turn_start:
            _sign_first_call(parts)
        role = _ROLES[message.role]
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    return ({"parts": system} if system else None), contents

"""``ChatMessage`` list → Chat Completions ``messages``.

Follows https://platform.openai.com/docs/api-reference/chat/create (message params):

* system → ``{"role": "system", "content": str}``;
* user → a plain string when it is one text part, else typed parts ``text`` / ``image_url``
  (a URL or a base64 ``data:`` URL), ``file`` (a ``DocumentPart`` as ``file_data`` with a
  ``filename``; a document URL is refused: the API takes data) and ``input_audio`` (WAV / MP3
  bytes; other audio is refused);
* assistant → ``content`` (text or null), ``tool_calls`` with ``arguments`` as a JSON *string*
  (the model's raw text when we have it, so the round trip is exact); a custom (freeform)
  tool call (``provider_data["custom"]``, from either OpenAI API) is the SDK's
  ``ChatCompletionMessageCustomToolCallParam``, ``{"id", "type": "custom", "custom": {"name",
  "input"}}`` with the raw text (its result is an ordinary tool message); reasoning is dropped,
  except that presets with ``send_reasoning_content`` (DeepSeek: required on tool-call turns)
  send back ``reasoning_content`` that this same provider produced, on turns with tool calls;
* tool results → one ``{"role": "tool", "tool_call_id", "content"}`` message each; tool
  messages take text only, so images (and documents) in a result follow as a user message — or, for a model
  set to take no images (preset or option ``images: False``), become a short text note in the
  tool message (named in ``StreamStart.warnings``), so a tool loop goes on; an image in a user
  message to such a model is an ``UnsupportedFeatureError`` before anything is sent.

* this provider's OpenRouter ``reasoning_details`` and Gemini-endpoint ``extra_content`` go
  back where they came from (``round_trip.py``); on Gemini's endpoint
  (``Preset.gemini_signatures``) with a Gemini 3 model, the first call of each step of the
  current turn that carries no signature gets Google's placeholder there.

``request.py`` runs ``providers/history.py`` first: parts of other providers (``RawPart``,
foreign reasoning) are left out there, with a warning, and tool-call ids are made to fit.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    UserPart,
)
from ...tool_calls import arguments_text
from ...tool_spec import CUSTOM_INPUT
from ..history import current_turn_start
from .round_trip import DETAILS, EXTRA_CONTENT, call_extra, reasoning_details, sign_first_call

__all__ = [
    "CUSTOM",
    "audio_input",
    "cache_breakpoint",
    "custom_input",
    "document_name",
    "encode_messages",
    "image_note",
    "is_custom_call",
    "result_images",
]

CUSTOM = "custom"
"""``ToolCallPart.provider_data`` / ``ToolCallEnd.provider_data`` key (``True``) of a custom
(freeform) tool call; both OpenAI APIs read and write it, so such a call crosses between them."""


def is_custom_call(part: ToolCallPart) -> bool:
    """Whether ``part`` is a call of a custom (freeform) tool."""
    return bool((part.provider_data or {}).get(CUSTOM))


def custom_input(part: ToolCallPart) -> str:
    """A custom call's raw text (``raw_arguments``, else ``arguments["input"]``)."""
    if part.raw_arguments is not None:
        return part.raw_arguments
    value = part.arguments.get(CUSTOM_INPUT)
    return value if isinstance(value, str) else arguments_text(part.arguments)


def encode_messages(
    *,
    messages: list[ChatMessage],
    provider: str,
    send_reasoning_content: bool,
    images: bool = True,
    cache_points: bool = False,
    model: str = "",
    placeholder_signatures: bool = False,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    turn_start = current_turn_start(messages) if placeholder_signatures else len(messages)
    for index, message in enumerate(messages):
        if message.role == "assistant":
            out.append(_assistant(message, provider, send_reasoning_content, model))
            if index > turn_start:
                sign_first_call(out[-1])
            continue
        results = message.tool_results
        if results:
            _tool_results(results, out, images=images, provider=provider)
        rest = [
            p
            for p in message.content
            if isinstance(p, TextPart | ImagePart | DocumentPart | AudioPart)
            or (cache_points and isinstance(p, CachePoint))
        ]
        if not any(not isinstance(p, CachePoint) for p in rest):
            continue
        if not images and any(isinstance(p, ImagePart) for p in rest):
            raise UnsupportedFeatureError(
                f"{provider} is set to take no images (images: False), and a "
                f"{message.role} message holds one: remove it, or set images: True if the "
                "model does take them",
                provider=provider,
            )
        if message.role == "system":
            texts = [p for p in rest if isinstance(p, TextPart | CachePoint)]
            marked = any(isinstance(p, CachePoint) for p in texts)  # else one joined string
            content = _user_content(texts, provider) if marked else message.text
            out.append({"role": "system", "content": content})
        else:
            out.append({"role": "user", "content": _user_content(rest, provider)})
    return out


def _user_content(parts: Sequence[UserPart], provider: str) -> str | list[dict[str, Any]]:
    """A plain string for one text part, else typed parts; a ``CachePoint`` marks the part
    before it with ``prompt_cache_breakpoint`` (explicit, ``ttl`` 30m or 12h when asked)."""
    if len(parts) == 1 and isinstance(parts[0], TextPart):
        return parts[0].text
    content: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, CachePoint):
            if content:
                content[-1]["prompt_cache_breakpoint"] = cache_breakpoint(part)
        else:
            content.append(_content_part(part, provider))
    return content


def cache_breakpoint(point: CachePoint) -> dict[str, str]:
    """OpenAI's explicit breakpoint (both APIs): the ttl rounded up to 30m or 12h."""
    mark = {"mode": "explicit"}
    if point.ttl is not None:
        mark["ttl"] = "30m" if point.ttl <= 1800 else "12h"
    return mark


def _content_part(
    part: TextPart | ImagePart | DocumentPart | AudioPart, provider: str
) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": part.data_url}}
    if isinstance(part, AudioPart):
        return {"type": "input_audio", "input_audio": audio_input(part, provider=provider)}
    if part.url is not None and not part.url.startswith("data:"):
        raise UnsupportedFeatureError(
            f"{provider}: Chat Completions takes documents as data, not by URL "
            f"({part.url!r}): pass DocumentPart(data=..., media_type=...)",
            provider=provider,
        )
    return {"type": "file", "file": {"file_data": part.data_url, "filename": document_name(part)}}


_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}
"""``input_audio.format`` by media type (the API takes WAV and MP3)."""


def audio_input(part: AudioPart, *, provider: str) -> dict[str, str]:
    """``{"data", "format"}`` of ``input_audio`` (both OpenAI APIs), or a clear refusal."""
    if part.data is not None:
        media_type, payload = part.media_type, part.base64_data
    elif part.url is not None and part.url.startswith("data:") and ";base64," in part.url:
        head, _, payload = part.url.partition(";base64,")  # a data: URL is data, not a link
        media_type = head[5:]
    else:
        raise UnsupportedFeatureError(
            f"{provider} takes audio as data, not by URL ({part.url!r})", provider=provider
        )
    fmt = _AUDIO_FORMATS.get(media_type or "")
    if fmt is None:
        raise UnsupportedFeatureError(
            f"{provider} takes audio as WAV or MP3, not {media_type!r}", provider=provider
        )
    return {"data": payload, "format": fmt}


def document_name(part: DocumentPart) -> str:
    """The ``filename`` a document is sent with (the API wants one with ``file_data``)."""
    if part.name:
        return part.name
    ext = (part.media_type or "").rpartition("/")[2]
    return f"document.{'txt' if ext == 'plain' else ext or 'bin'}"


def image_note(part: ImagePart) -> str:
    """What a model that takes no images reads in place of an image in a tool result."""
    size = f", {len(part.data):,} bytes" if part.data is not None else ""
    return f"[image omitted ({part.media_type or 'image'}{size}): this model takes no images]"


def result_images(messages: list[ChatMessage]) -> int:
    """How many images the tool results of ``messages`` hold."""
    return sum(
        isinstance(p, ImagePart)
        for message in messages
        for result in message.tool_results
        for p in result.content
    )


def _tool_results(
    results: list[ToolResultPart], out: list[dict[str, Any]], *, images: bool, provider: str
) -> None:
    pictures: list[ImagePart | DocumentPart] = []
    for result in results:
        pictures.extend(p for p in result.content if isinstance(p, DocumentPart))
        found = [p for p in result.content if isinstance(p, ImagePart)]
        text = result.text
        if found and not images:
            text = "\n".join([text, *(image_note(p) for p in found)]).strip()
        else:
            pictures.extend(found)
        out.append({"role": "tool", "tool_call_id": result.tool_call_id, "content": text})
    if pictures:
        out.append({"role": "user", "content": [_content_part(p, provider) for p in pictures]})


def _arguments(call: ToolCallPart) -> str:
    if call.raw_arguments and call.error is None:
        return call.raw_arguments
    return arguments_text(call.arguments)


def _tool_call(part: ToolCallPart, provider: str) -> dict[str, Any]:
    call: dict[str, Any]
    if is_custom_call(part):
        custom = {"name": part.name, "input": custom_input(part)}
        call = {"id": part.id, "type": "custom", "custom": custom}
    else:
        function = {"name": part.name, "arguments": _arguments(part)}
        call = {"id": part.id, "type": "function", "function": function}
    extra = call_extra(part, provider=provider)
    if extra is not None:
        call[EXTRA_CONTENT] = extra
    return call


def _assistant(
    message: ChatMessage, provider: str, send_reasoning: bool, model: str
) -> dict[str, Any]:
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            text.append(part.text)
        elif isinstance(part, ToolCallPart):
            calls.append(_tool_call(part, provider))
        elif isinstance(part, ReasoningPart):
            if send_reasoning and part.provider == provider and part.text:
                reasoning.append(part.text)
        elif isinstance(part, ImagePart | ToolResultPart | RawPart):
            continue  # not expressible in an assistant message of this API
    joined = "".join(text)
    # "" rather than null beside tool calls: the SDK's types allow both, and some servers
    # (llama-cpp-python) answer 500 to null.
    out: dict[str, Any] = {"role": "assistant", "content": joined}
    if send_reasoning and calls:  # DeepSeek wants it on tool-call turns (and rejects it
        # elsewhere): the field must be there even when the turn has none of this provider's
        # reasoning (a turn from another provider), else its API answers 400
        out["reasoning_content"] = "".join(reasoning)
    details = reasoning_details(message, provider=provider, model=model)
    if details:
        out[DETAILS] = details
    if calls:
        out["tool_calls"] = calls
    return out

"""Files a browser sends (a ``data:`` URL or a link, with a media type) as llmbridge parts, and
the one error type bad browser input raises.

Rules: ``image/*`` becomes an ``ImagePart``, ``audio/*`` an ``AudioPart``, anything else a
``DocumentPart`` (named by its file name); a ``data:`` URL is decoded to bytes, any other URL is
kept as a link. Malformed input is a ``UsageError`` naming where it was (``messages[2].parts[0]``),
never a raw pydantic, ``KeyError`` or ``binascii`` error.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from typing import Any

from pydantic import ValidationError

from ..errors import UsageError
from ..parts import AudioPart, DocumentPart, ImagePart

__all__ = ["bad", "field", "media_part", "need_list"]


def bad(where: str, problem: str) -> UsageError:
    return UsageError(f"{where}: {problem}")


def field(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``obj[key]`` checked to be a ``kind`` (a ``UsageError`` naming ``where`` otherwise)."""
    if not isinstance(obj, dict):
        raise bad(where, f"expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise bad(where, f"missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise bad(f"{where}.{key}", f"expected {_name(kind)}, got {type(value).__name__}")
    return value


def need_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise bad(where, f"expected a list, got {type(value).__name__}")
    return value


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _decode_data_url(url: str, where: str) -> tuple[bytes, str | None]:
    head, comma, payload = url.partition(",")
    if not comma:
        raise bad(where, "a data: URL without a comma")
    params = head[len("data:") :].split(";")
    media_type = params[0] or None
    try:
        if "base64" in params[1:]:
            return base64.b64decode(payload, validate=True), media_type
    except (binascii.Error, ValueError) as exc:
        raise bad(where, f"a data: URL whose base64 does not decode ({exc})") from exc
    return urllib.parse.unquote_to_bytes(payload), media_type


def media_part(
    *, url: str, media_type: str | None, name: str | None, where: str, kind: str | None = None
) -> ImagePart | AudioPart | DocumentPart:
    """The part for a file at ``url`` (see module rules); ``kind`` (``image``, ``audio``...)
    when the sender said what it is."""
    data: bytes | None = None
    if url.startswith("data:"):
        data, url_type = _decode_data_url(url, where)
        media_type = media_type or url_type
    kind = kind or (media_type or "").split("/")[0]
    source: dict[str, Any] = {"data": data} if data is not None else {"url": url}
    try:
        if kind == "image":
            return ImagePart(media_type=media_type, **source)
        if kind == "audio":
            return AudioPart(media_type=media_type, **source)
        return DocumentPart(media_type=media_type, name=name, **source)
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise bad(where, f"not a file llmbridge takes ({problems})") from exc

"""Vectors off the wire: base64 float32 decoded without a loop per float, bits packed.

Rules:

* ``float32_base64`` decodes every vector into its place in one buffer (what
  ``EmbeddingResponse(raw=...)`` keeps): ``binascii`` decodes, nothing touches a float.
* ``scan_base64`` finds the base64 strings of one key in a raw JSON body by a linear scan
  (their byte ranges, and the body without them, small enough to parse): the vectors are then
  decoded from the body's bytes straight into one buffer, never held as Python strings: the
  ``Rows`` of the whole call when it is split (each piece fills its own rows, so the pieces
  are never joined by a copy). ``skeleton_json`` parses the body without them with the
  standard library's reader, which builds the objects as it reads: orjson's reader first
  allocates a pool of about 18x its input (366 KB for the 20 KB skeleton of 680 vectors), and
  that pool was a split call's peak memory.
* ``pack_bits`` packs one 0/1 value per dimension (Titan's ``binary``) into bytes, the first
  dimension in the high bit (numpy's ``packbits``, the way Cohere and Voyage send ``ubinary``);
  ``binary`` is the same bytes read as signed ``int8``.
* A malformed vector is a ``MalformedStreamError`` naming the provider.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Sequence
from typing import Any

from ..errors import MalformedStreamError

__all__ = [
    "Rows",
    "decode_spans",
    "float32_base64",
    "pack_bits",
    "scan_base64",
    "skeleton_json",
    "vector_list",
]


def float32_base64(items: Sequence[Any], *, provider: str) -> tuple[bytearray, int]:
    """The float32 bytes of every base64 vector in ``items``, in one buffer, and their width
    (each vector is decoded straight into its place: one vector's bytes at a time extra)."""
    try:
        first = binascii.a2b_base64(items[0]) if items else b""
        width = len(first)
        if width % 4:
            raise ValueError("not float32 sized")
        buffer = bytearray(width * len(items))
        buffer[:width] = first
        for i in range(1, len(items)):
            chunk = binascii.a2b_base64(items[i])
            if len(chunk) != width:
                raise ValueError("vectors of unequal sizes")
            buffer[i * width : (i + 1) * width] = chunk
    except (binascii.Error, TypeError, ValueError) as exc:
        raise MalformedStreamError(
            f"{provider}: base64 embeddings that are not float32 vectors of one size ({exc})",
            provider=provider,
        ) from None
    return buffer, width // 4


_WHITESPACE = b" \t\r\n"


def scan_base64(body: bytes, key: bytes) -> tuple[list[tuple[int, int]], bytes] | None:
    """The byte ranges of the string values of ``"key"`` in ``body`` and the body with those
    values emptied (``""``); ``None`` when a value is not a plain string (no escapes), so the
    caller parses the body whole instead."""
    needle = b'"' + key + b'"'
    spans: list[tuple[int, int]] = []
    kept: list[bytes] = []
    pos = done = 0
    while (found := body.find(needle, pos)) != -1:
        at = found + len(needle)
        while at < len(body) and body[at] in _WHITESPACE:
            at += 1
        if at >= len(body) or body[at] != 0x3A:  # not a key: a value such as "object": "embedding"
            pos = at
            continue
        at += 1
        while at < len(body) and body[at] in _WHITESPACE:
            at += 1
        if at >= len(body) or body[at] != 0x22:  # a list of floats, not a base64 string
            return None
        end = body.find(b'"', at + 1)
        if end == -1 or body.find(b"\\", at + 1, end) != -1:
            return None
        spans.append((at + 1, end))
        kept.append(body[done : at + 1])
        done = pos = end
    kept.append(body[done:])
    return spans, b"".join(kept)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def skeleton_json(rest: bytes) -> Any:
    """``rest`` (``scan_base64``'s body without its vectors) parsed: a ``ValueError`` when it
    is not JSON (``NaN`` and ``Infinity`` included, as orjson reads them; nesting too deep)."""
    try:
        return json.loads(rest, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deep") from None


class Rows:
    """The float32 rows of ``count`` vectors in one buffer, made at the first vector (its
    width in bytes); each piece of a split call decodes into its own rows of it."""

    __slots__ = ("buffer", "count", "width")

    def __init__(self, count: int) -> None:
        self.count = count
        self.buffer: bytearray | None = None
        self.width = 0

    def take(self, width: int) -> bytearray:
        """The buffer, made for vectors of ``width`` bytes (a ``ValueError`` for another)."""
        if self.buffer is None:
            self.width, self.buffer = width, bytearray(width * self.count)
        elif width != self.width:
            raise ValueError("vectors of unequal sizes")
        return self.buffer


def decode_spans(
    body: bytes,
    spans: list[tuple[int, int]],
    order: list[int],
    *,
    provider: str,
    rows: Rows | None = None,
    start: int = 0,
) -> tuple[bytearray | memoryview, int]:
    """The float32 bytes of the base64 ``spans`` of ``body``, span ``i`` at row
    ``start + order[i]`` of ``rows`` (its own buffer when none is given: then all of it, else
    a view of the rows it filled), and their width (one vector's bytes at a time extra)."""
    view = memoryview(body)
    own = rows is None
    rows = Rows(len(spans)) if rows is None else rows
    try:
        first = binascii.a2b_base64(view[spans[0][0] : spans[0][1]]) if spans else b""
        width = len(first)
        if width % 4 or sorted(order) != list(range(len(spans))):
            raise ValueError("not float32 vectors with one index each")
        buffer = rows.take(width)
        for i, (begin, end) in enumerate(spans):
            chunk = first if i == 0 else binascii.a2b_base64(view[begin:end])
            if len(chunk) != width:
                raise ValueError("vectors of unequal sizes")
            row = (start + order[i]) * width
            buffer[row : row + width] = chunk
    except (binascii.Error, TypeError, ValueError) as exc:
        raise MalformedStreamError(
            f"{provider}: base64 embeddings that are not float32 vectors of one size ({exc})",
            provider=provider,
        ) from None
    finally:
        view.release()
    if own:
        return buffer, width // 4
    return memoryview(buffer)[start * width : (start + len(spans)) * width], width // 4


def pack_bits(bits: Sequence[Any], *, signed: bool) -> list[int]:
    """One 0/1 per dimension → 8 dimensions a byte, the first in the high bit."""
    text = "".join("1" if b else "0" for b in bits)
    text += "0" * (-len(text) % 8)
    packed = int(text, 2).to_bytes(len(text) // 8, "big") if text else b""
    if signed:
        return [b - 256 if b > 127 else b for b in packed]
    return list(packed)


def vector_list(value: Any, *, provider: str) -> list[Any]:
    """``value`` checked to be a list of numbers (the JSON vector of one input)."""
    if not isinstance(value, list):
        raise MalformedStreamError(
            f"{provider}: expected an embedding (a list of numbers), got {type(value).__name__}",
            provider=provider,
        )
    return value

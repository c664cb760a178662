"""Vectors off the wire: base64 float32 decoded without a loop per float, bits packed.

Rules:

* ``float32_base64`` joins the decoded bytes of every vector into one ``bytes`` (what
  ``EmbeddingResponse(raw=...)`` keeps): ``binascii`` decodes, nothing touches a float.
* ``pack_bits`` packs one 0/1 value per dimension (Titan's ``binary``) into bytes, the first
  dimension in the high bit (numpy's ``packbits``, the way Cohere and Voyage send ``ubinary``);
  ``binary`` is the same bytes read as signed ``int8``.
* A malformed vector is a ``MalformedStreamError`` naming the provider.
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence
from typing import Any

from ..errors import MalformedStreamError

__all__ = ["float32_base64", "pack_bits", "vector_list"]


def float32_base64(items: Sequence[Any], *, provider: str) -> tuple[bytes, int]:
    """The float32 bytes of every base64 vector in ``items``, joined, and their width."""
    try:
        chunks = [binascii.a2b_base64(item) for item in items]
    except (binascii.Error, TypeError) as exc:
        raise MalformedStreamError(
            f"{provider}: an embedding is not base64 ({exc})", provider=provider
        ) from None
    width = len(chunks[0]) if chunks else 0
    if width % 4 or any(len(c) != width for c in chunks):
        raise MalformedStreamError(
            f"{provider}: base64 embeddings of unequal or non-float32 sizes", provider=provider
        )
    return b"".join(chunks), width // 4


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

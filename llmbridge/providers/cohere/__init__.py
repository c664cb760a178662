"""``cohere``: Cohere's v2 chat API, streamed (``POST /v2/chat`` with ``stream: true``)."""

from __future__ import annotations

from .decode import CohereDecoder
from .provider import CohereProvider, create

__all__ = ["CohereDecoder", "CohereProvider", "create"]

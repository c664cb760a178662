"""``bedrock``: Amazon Bedrock's Converse API, streamed (``/model/{id}/converse-stream``)."""

from __future__ import annotations

from .decode import BedrockDecoder
from .provider import BedrockProvider, create

__all__ = ["BedrockDecoder", "BedrockProvider", "create"]

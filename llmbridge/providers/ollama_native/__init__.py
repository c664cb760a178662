"""``ollama-native``: Ollama's own ``/api/chat``, streamed as NDJSON (the ``ollama`` preset is
its OpenAI-compatible endpoint)."""

from __future__ import annotations

from .decode import OllamaDecoder
from .provider import OllamaNativeProvider, create

__all__ = ["OllamaDecoder", "OllamaNativeProvider", "create"]

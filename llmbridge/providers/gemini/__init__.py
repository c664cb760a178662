"""Google Gemini: the ``gemini`` (Gemini API) and ``vertex`` (Vertex AI) providers.

Files as in every provider (see ``llmbridge.providers``), plus ``schema.py`` (JSON Schema →
Gemini Schema) and ``partial_args.py`` (Vertex streamed arguments).
"""

from .decode import GeminiDecoder
from .provider import GeminiProvider, VertexProvider, create, create_vertex

__all__ = ["GeminiDecoder", "GeminiProvider", "VertexProvider", "create", "create_vertex"]

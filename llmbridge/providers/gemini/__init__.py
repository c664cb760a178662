"""Google Gemini: the ``gemini`` (Gemini API) and ``vertex`` (Vertex AI) providers.

Files as in every provider (see ``llmbridge.providers``), plus ``schema.py`` (JSON Schema →
Gemini Schema) and ``partial_args.py`` (Vertex streamed arguments). The face also exports the
helpers ``gemini-interactions:`` / ``vertex-interactions:`` reuse (errors, hosted tools).
"""

from .decode import GeminiDecoder
from .errors import map_http_error
from .hosted import GEMINI_TOOLS, VERTEX_TOOLS, encode_hosted
from .model_list import parse_model_list
from .provider import GEMINI_BASE_URL, GeminiProvider, VertexProvider, create, create_vertex

__all__ = [
    "GEMINI_BASE_URL",
    "GEMINI_TOOLS",
    "VERTEX_TOOLS",
    "GeminiDecoder",
    "GeminiProvider",
    "VertexProvider",
    "create",
    "create_vertex",
    "encode_hosted",
    "map_http_error",
    "parse_model_list",
]

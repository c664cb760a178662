"""Google Gemini: the ``gemini`` (Gemini API) and ``vertex`` (Vertex AI) providers.

Files: ``provider.py`` (URLs, auth, wiring), ``request.py`` (request body), ``contents.py``
(messages → contents), ``schema.py`` (JSON Schema → Gemini Schema), ``decode.py`` (stream
decoder), ``partial_args.py`` (Vertex streamed arguments), ``finish_reasons.py``, ``usage.py``.
"""

from .decode import GeminiDecoder
from .provider import GeminiProvider, VertexProvider, create, create_vertex

__all__ = ["GeminiDecoder", "GeminiProvider", "VertexProvider", "create", "create_vertex"]

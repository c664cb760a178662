"""OpenAI Responses API provider (``openai-responses:<model>``).

Files: ``provider.py`` (wiring, auth), ``encode.py`` (request body), ``messages.py`` (input
items), ``decode.py`` (stream decoder), ``usage.py``, ``finish_reasons.py``, ``errors.py``.
"""

from .decode import ResponsesDecoder
from .provider import DEFAULT_BASE_URL, OpenAIResponsesProvider, create

__all__ = ["DEFAULT_BASE_URL", "OpenAIResponsesProvider", "ResponsesDecoder", "create"]

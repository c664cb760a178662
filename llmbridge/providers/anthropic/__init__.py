"""Anthropic Messages API provider (``anthropic:<model>``).

Files: ``provider.py`` (options, wiring), ``request.py`` (body and headers), ``encode.py``
(messages and parts), ``models.py`` (per-model defaults), ``decode.py`` (stream state machine),
``usage.py``, ``finish_reasons.py``, ``errors.py``.
"""

from .decode import AnthropicDecoder
from .provider import DEFAULT_BASE_URL, AnthropicProvider, create

__all__ = ["DEFAULT_BASE_URL", "AnthropicDecoder", "AnthropicProvider", "create"]

"""Anthropic Messages API provider (``anthropic:<model>``).

Files as in every provider (see ``llmbridge.providers``), plus ``models.py`` (per-model output
caps and thinking styles) and ``blocks.py`` (content blocks → events, for the decoder).
"""

from .decode import AnthropicDecoder
from .provider import DEFAULT_BASE_URL, AnthropicProvider, create

__all__ = ["DEFAULT_BASE_URL", "AnthropicDecoder", "AnthropicProvider", "create"]

"""OpenAI Chat Completions (``openai``) and the OpenAI-compatible presets.

Files: ``presets.py`` (one data row per server), ``encode.py`` / ``messages.py`` /
``tools.py`` (request body), ``decode.py`` / ``tool_calls.py`` / ``usage.py`` /
``finish_reasons.py`` (stream), ``errors.py`` (HTTP errors), ``provider.py`` (wiring).
Independent of ``llmbridge.providers.openai_responses``.
"""

from .decode import ChatCompletionsDecoder
from .presets import PRESETS, Preset, preset_factory
from .provider import OpenAIChatProvider, create

__all__ = [
    "PRESETS",
    "ChatCompletionsDecoder",
    "OpenAIChatProvider",
    "Preset",
    "create",
    "preset_factory",
]

"""OpenAI Chat Completions (``openai``) and the OpenAI-compatible presets.

Files as in every provider (see ``llmbridge.providers``), plus ``presets.py`` (one data row per
server) and ``tool_calls.py`` (how streamed ``delta.tool_calls`` address a call). Independent
of ``llmbridge.providers.openai_responses``.
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

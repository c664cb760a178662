"""OpenAI Chat Completions (``openai``) and the OpenAI-compatible presets.

Files as in every provider (see ``llmbridge.providers``), plus ``presets.py`` (one data row per
server, importing none of the code that reads it) and ``tool_calls.py`` (how streamed
``delta.tool_calls`` address a call). Independent of ``llmbridge.providers.openai_responses``.

Names load on first use, so the registry can read ``presets.PRESETS`` without loading the
provider, its decoder or the HTTP stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .decode import ChatCompletionsDecoder
    from .presets import PRESETS, Preset
    from .provider import OpenAIChatProvider, create, preset_factory

__all__ = [
    "PRESETS",
    "ChatCompletionsDecoder",
    "OpenAIChatProvider",
    "Preset",
    "create",
    "preset_factory",
]

_WHERE = {
    "ChatCompletionsDecoder": ".decode",
    "PRESETS": ".presets",
    "Preset": ".presets",
    "OpenAIChatProvider": ".provider",
    "create": ".provider",
    "preset_factory": ".provider",
}


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})

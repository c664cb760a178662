"""OpenAI Chat Completions (``openai``) and the OpenAI-compatible presets.

Files as in every provider (see ``llmbridge.providers``), plus ``presets.py`` (one data row per
server, importing none of the code that reads it) and ``tool_calls.py`` (how streamed
``delta.tool_calls`` address a call). Independent of ``llmbridge.providers.openai_responses``.

Names load on first use, so the registry can read ``presets.PRESETS`` without loading the
provider, its decoder or the HTTP stack. Besides the provider, this face names what the
Responses family (``providers.openai_responses``) builds on: the preset table and endpoints,
the error table, message pieces, tool schemas, model listing and rate limits; it imports them
from here, never from the modules behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .decode import ChatCompletionsDecoder
    from .endpoints import resolve_endpoint
    from .errors import CONTEXT_LENGTH_CODES, ERRORS, map_http_error
    from .messages import CUSTOM, cache_breakpoint, custom_input, document_name, is_custom_call
    from .model_list import parse_model_list
    from .presets import PRESET_OPTIONS, PRESETS, Preset, resolve_preset
    from .provider import OpenAIChatProvider, create, preset_factory
    from .tools import response_schema_warning, schema_format
    from .usage import read_rate_limit

__all__ = [
    "CONTEXT_LENGTH_CODES",
    "CUSTOM",
    "ERRORS",
    "PRESETS",
    "PRESET_OPTIONS",
    "ChatCompletionsDecoder",
    "OpenAIChatProvider",
    "Preset",
    "cache_breakpoint",
    "create",
    "custom_input",
    "document_name",
    "is_custom_call",
    "map_http_error",
    "parse_model_list",
    "preset_factory",
    "read_rate_limit",
    "resolve_endpoint",
    "resolve_preset",
    "response_schema_warning",
    "schema_format",
]

_WHERE = {
    "ChatCompletionsDecoder": ".decode",
    "resolve_endpoint": ".endpoints",
    "CONTEXT_LENGTH_CODES": ".errors",
    "ERRORS": ".errors",
    "map_http_error": ".errors",
    "CUSTOM": ".messages",
    "cache_breakpoint": ".messages",
    "custom_input": ".messages",
    "document_name": ".messages",
    "is_custom_call": ".messages",
    "parse_model_list": ".model_list",
    "PRESETS": ".presets",
    "PRESET_OPTIONS": ".presets",
    "Preset": ".presets",
    "resolve_preset": ".presets",
    "OpenAIChatProvider": ".provider",
    "create": ".provider",
    "preset_factory": ".provider",
    "response_schema_warning": ".tools",
    "schema_format": ".tools",
    "read_rate_limit": ".usage",
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

"""Anthropic Messages API provider (``anthropic:<model>``).

Files as in every provider (see ``llmbridge.providers``), plus ``models.py`` (per-model output
caps and thinking styles) and ``blocks.py`` (content blocks → events, for the decoder).

This package's face is also what the families built on the Messages format use (Claude on the
clouds, ``providers.anthropic_clouds``): the body and header builders, the decoder, the error
table, the server tools, model listing, rate limits and tool-search answers. They import these
names from here, never from the modules behind them.
"""

from .compaction import compaction_betas
from .decode import AnthropicDecoder
from .errors import map_http_error
from .hosted import HOSTED_TOOLS, encode_hosted
from .model_list import PAGE_SIZE, parse_model_list
from .provider import DEFAULT_BASE_URL, AnthropicProvider, create, model_capabilities
from .request import (
    API_VERSION,
    COUNT_FIELDS,
    MessagesBody,
    build_body,
    build_headers,
    count_tokens_body,
)
from .tool_search import ToolSearchAnswers
from .usage import read_rate_limit
from .whole import AnthropicWholeDecoder, whole_body

__all__ = [
    "API_VERSION",
    "COUNT_FIELDS",
    "DEFAULT_BASE_URL",
    "HOSTED_TOOLS",
    "PAGE_SIZE",
    "AnthropicDecoder",
    "AnthropicProvider",
    "AnthropicWholeDecoder",
    "MessagesBody",
    "ToolSearchAnswers",
    "build_body",
    "build_headers",
    "compaction_betas",
    "count_tokens_body",
    "create",
    "encode_hosted",
    "map_http_error",
    "model_capabilities",
    "parse_model_list",
    "read_rate_limit",
    "whole_body",
]

"""Provider adapters and the plug-in API (see ``base`` for the protocol).

Every provider folder uses the same file names for the same jobs:

=====================  ==============================================================
``provider.py``        options, URL, auth; ``create(config)``; wires the files below
``request.py``         ``ChatRequest`` → body and warnings (``build_body`` → ``Encoded``)
``messages.py``        chat messages → the wire's message list (``encode_messages``)
``tools.py``           ``ToolSpec`` / ``ToolChoice`` → the wire (``encode_tools``, ...)
``decode.py``          the sans-IO stream decoder (``feed`` / ``close``)
``errors.py``          the provider's error vocabulary (``ERRORS``) and ``map_http_error``
``finish_reasons.py``  raw finish reason → ``FinishReason`` (``map_finish_reason``)
``usage.py``           the wire's usage → ``Usage`` (``convert_usage``)
``model_list.py``      the provider's model list → ``ModelInfo`` (``parse_model_list``)
=====================  ==============================================================

A provider may add files for jobs only it has (its ``__init__`` names them); how its wire
addresses a tool call lives beside the decoder, on top of ``llmbridge.tool_calls``. What
several providers do the same way lives here, provider-neutral: ``decoding.py`` (a decoder's
failure discipline, ``finish_reason_mapper``), ``request_parts.py`` (body pieces built alike),
``history.py`` (history adaptation) and ``http_errors.py`` (the error mechanism).
"""

from ..secrets import Secret as Secret
from .adapter import Prepares
from .base import (
    BaseDecoder,
    Capabilities,
    CountsTokens,
    Decoder,
    Encoded,
    HttpRequest,
    ListsModels,
    Provider,
    ProviderFactory,
    ReadsRateLimits,
    WrappingDecoder,
)
from .config import ProviderConfig
from .prepared import Framing, Prepared
from .registry import (
    ENTRY_POINT_GROUP,
    available_providers,
    create_provider,
    register_provider,
    split_model,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "BaseDecoder",
    "Capabilities",
    "CountsTokens",
    "Decoder",
    "Encoded",
    "Framing",
    "HttpRequest",
    "ListsModels",
    "Prepared",
    "Prepares",
    "Provider",
    "ProviderConfig",
    "ProviderFactory",
    "ReadsRateLimits",
    "WrappingDecoder",
    "available_providers",
    "create_provider",
    "register_provider",
    "split_model",
]

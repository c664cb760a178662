"""Provider adapters and the plug-in API (see ``base`` for the protocol)."""

from .base import (
    Capabilities,
    Decoder,
    HttpRequest,
    Provider,
    ProviderConfig,
    ProviderFactory,
    Secret,
)
from .registry import (
    ENTRY_POINT_GROUP,
    available_providers,
    create_provider,
    register_provider,
    split_model,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Capabilities",
    "Decoder",
    "HttpRequest",
    "Provider",
    "ProviderConfig",
    "ProviderFactory",
    "Secret",
    "available_providers",
    "create_provider",
    "register_provider",
    "split_model",
]

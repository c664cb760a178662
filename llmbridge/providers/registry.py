"""Provider registry: name → factory. Built-ins load lazily; plug-ins come from entry points.

Rules: built-in providers are imported only when first used (``import llmbridge`` stays
cheap). The built-ins are the native providers in ``_BUILTINS`` plus every row of the
OpenAI-compatible preset table (``llmbridge.providers.openai.presets.PRESETS``, ``openai``
included): preset names live in that one table, a data module the registry reads when a name is
first looked up or listed (loading it loads no provider code). Third parties register through
the ``llmbridge.providers`` entry-point group (the entry point loads a ``ProviderFactory``: any
callable ``ProviderConfig -> Provider``, a class included) or by calling ``register_provider``.
Names given to ``register_provider`` win over entry points, which never shadow built-ins.
Errors name what is known and what broke.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, NamedTuple

from ..errors import ConfigurationError
from .base import BuildsRequests, Provider, ProviderFactory
from .config import ProviderConfig
from .option_names import did_you_mean

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "ENTRY_POINT_GROUP",
    "available_providers",
    "create_provider",
    "provider_factory",
    "register_provider",
    "split_model",
]

ENTRY_POINT_GROUP = "llmbridge.providers"


class _Builtin(NamedTuple):
    module: str
    attr: str


_BUILTINS: dict[str, _Builtin] = {
    "openai-responses": _Builtin("llmbridge.providers.openai_responses", "create"),
    "anthropic": _Builtin("llmbridge.providers.anthropic", "create"),
    "anthropic-compatible": _Builtin("llmbridge.providers.anthropic.compatible", "create"),
    "gemini": _Builtin("llmbridge.providers.gemini", "create"),
    "vertex": _Builtin("llmbridge.providers.gemini", "create_vertex"),
    "gemini-interactions": _Builtin("llmbridge.providers.gemini_interactions", "create"),
    "vertex-interactions": _Builtin("llmbridge.providers.gemini_interactions", "create_vertex"),
    "bedrock": _Builtin("llmbridge.providers.bedrock", "create"),
    "anthropic-bedrock": _Builtin("llmbridge.providers.anthropic_clouds.bedrock", "create"),
    "anthropic-vertex": _Builtin("llmbridge.providers.anthropic_clouds.vertex", "create"),
    "anthropic-foundry": _Builtin("llmbridge.providers.anthropic_clouds.foundry", "create"),
    "anthropic-aws": _Builtin("llmbridge.providers.anthropic_clouds.aws", "create"),
    "anthropic-google-cloud": _Builtin(
        "llmbridge.providers.anthropic_clouds.google_cloud", "create"
    ),
    "anthropic-bedrock-mantle": _Builtin("llmbridge.providers.anthropic_clouds.mantle", "create"),
    "ollama-native": _Builtin("llmbridge.providers.ollama_native", "create"),
    "cohere": _Builtin("llmbridge.providers.cohere", "create"),
    "voyage": _Builtin("llmbridge.providers.embedding_hosts", "create_voyage"),
    "jina": _Builtin("llmbridge.providers.embedding_hosts", "create_jina"),
    "tei": _Builtin("llmbridge.providers.embedding_hosts", "create_tei"),
}
"""Native providers, named by module path like the preset table and its factory below and
imported through ``importlib`` on first use: a provider's modules import
``llmbridge.providers.base``, whose package imports this registry, so an import statement here
would close a circle."""

_PRESET_TABLE = "llmbridge.providers.openai.presets"
_PRESET_FACTORY = _Builtin("llmbridge.providers.openai.provider", "preset_factory")
_RESPONSES_PRESET_FACTORY = _Builtin(
    "llmbridge.providers.openai_responses.provider", "responses_preset_factory"
)
"""A preset row with ``api="responses"`` is built by the Responses provider, a Chat row by the
Chat Completions one: the registry picks (neither provider package imports the other's)."""


def _preset_names() -> Collection[str]:
    """Every row of the OpenAI-compatible preset table (``openai`` included)."""
    presets: Mapping[str, object] = importlib.import_module(_PRESET_TABLE).PRESETS
    return presets.keys()


_registered: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory, *, replace: bool = False) -> None:
    """Register a provider factory under ``name`` (used as the model-string prefix)."""
    if ":" in name or not name:
        raise ConfigurationError(f"provider names are non-empty and hold no ':' (got {name!r})")
    if name in _registered and not replace:
        raise ConfigurationError(f"provider {name!r} is already registered (pass replace=True)")
    _registered[name] = factory


def entry_points(group: str) -> list[EntryPoint]:
    """Installed plug-ins of ``group`` (importlib.metadata loads only when asked)."""
    from importlib.metadata import entry_points as installed

    return list(installed(group=group))


def _plugins() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_providers() -> list[str]:
    """Every provider name a model string may start with."""
    return sorted({*_BUILTINS, *_preset_names(), *_plugins(), *_registered})


def split_model(model: str) -> tuple[str, str]:
    """``"anthropic:claude-sonnet-4-5"`` → ``("anthropic", "claude-sonnet-4-5")``."""
    provider, sep, name = model.partition(":")
    if not sep or not provider or not name:
        raise ConfigurationError(
            f"model strings look like 'provider:model' (got {model!r}); "
            f"providers: {', '.join(available_providers())}"
        )
    return provider, name


def _factory(name: str) -> ProviderFactory:
    if name in _registered:
        return _registered[name]
    builtin = _BUILTINS.get(name)
    if builtin is not None:
        return getattr(importlib.import_module(builtin.module), builtin.attr)  # type: ignore[no-any-return]
    if name in _preset_names():
        row = importlib.import_module(_PRESET_TABLE).PRESETS[name]
        hook = _RESPONSES_PRESET_FACTORY if row.api == "responses" else _PRESET_FACTORY
        preset_factory = getattr(importlib.import_module(hook.module), hook.attr)
        return preset_factory(name)  # type: ignore[no-any-return]
    plugin = _plugins().get(name)
    if plugin is None:
        known = available_providers()
        raise ConfigurationError(
            f"unknown provider {name!r}{did_you_mean(name, known)}; known providers: "
            f"{', '.join(known)}"
        )
    try:
        loaded = plugin.load()
    except Exception as exc:
        raise ConfigurationError(
            f"plug-in provider {name!r} ({plugin.value}) failed to import: {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(loaded):
        raise ConfigurationError(
            f"plug-in provider {name!r} ({plugin.value}) is a {type(loaded).__name__}, "
            "not a factory taking a ProviderConfig"
        )
    return loaded  # type: ignore[no-any-return]


def provider_factory(name: str) -> ProviderFactory:
    """The factory registered as ``name`` (``ConfigurationError`` for an unknown name, with the
    closest known one)."""
    return _factory(name)


def create_provider(name: str, config: ProviderConfig | None = None) -> Provider:
    """Build the provider ``name`` from ``config`` (keys resolved here, once)."""
    factory = _factory(name)
    provider = factory(config or ProviderConfig())
    from .adapter import Prepares

    if not isinstance(provider, Provider) or not isinstance(provider, (Prepares, BuildsRequests)):
        raise ConfigurationError(
            f"provider {name!r}: its factory returned a {type(provider).__name__}, which lacks the "
            "Provider methods (name, capabilities, map_error, and prepare or build_request + "
            "new_decoder)"
        )
    return provider

"""Where an OpenAI-compatible preset's requests go: its base URL, resolved once.

Rules (shared by Chat Completions and the Responses presets):

* ``base_url`` (the option) wins, as given.
* Else the preset's base URL, its placeholders (``{region}``: ``Preset.base_url_vars``) filled
  from the option of that name, then the environment variables listed; a missing value is a
  ``ConfigurationError`` naming both.
* Azure (``Preset.azure``): ``AZURE_OPENAI_ENDPOINT``, else ``https://{resource}.openai.azure.com``
  from the ``resource`` option (the Azure host's ``providers.hosts.azure``, shared with
  ``anthropic-foundry``). The v1 API (``/openai/v1``, no ``api-version``) is used when
  the endpoint already ends in ``/openai/v1``, when ``api_version`` is ``"v1"``, when the
  endpoint came from ``resource`` with no ``api_version``, and always for the Responses API;
  otherwise deployment URLs with an ``api-version`` (``AZURE_API_VERSION`` by default).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ...errors import ConfigurationError
from ..hosts.azure import ENDPOINT_VAR, resource_url
from .presets import Preset

__all__ = ["AZURE_API_VERSION", "Endpoint", "resolve_endpoint"]

AZURE_API_VERSION = "2024-10-21"
"""Latest GA Azure OpenAI data-plane version for deployment URLs; override with ``api_version``."""

_AZURE_V1 = "/openai/v1"


@dataclass(frozen=True, slots=True)
class Endpoint:
    base_url: str
    """Without a trailing slash."""
    api_version: str | None = None
    """Azure deployment URLs only (``None``: plain ``{base_url}/chat/completions``)."""


def _fill(preset: Preset, options: Mapping[str, Any], env: Mapping[str, str], name: str) -> str:
    assert preset.base_url is not None
    sources = dict(preset.base_url_vars)
    values: dict[str, str] = {}
    for _, field, _, _ in string.Formatter().parse(preset.base_url):
        if not field:
            continue
        variables = sources.get(field, ())
        value = options.get(field) or next((env[v] for v in variables if env.get(v)), None)
        if not value:
            where = " or ".join(variables)
            raise ConfigurationError(
                f"provider {name!r} needs a {field}: pass providers={{{name!r}: {{{field!r}: ...}}}}"
                + (f" or set {where}" if where else ""),
                provider=name,
            )
        values[field] = quote(str(value), safe="")
    return preset.base_url.format(**values)


def resolve_endpoint(
    name: str,
    preset: Preset,
    *,
    base_url: str | None,
    options: Mapping[str, Any],
    env: Mapping[str, str],
) -> Endpoint:
    """The base URL (and Azure ``api-version``) of preset ``name`` (module docstring)."""
    from_resource = False
    if not base_url and preset.azure:
        base_url = env.get(ENDPOINT_VAR)
        resource = options.get("resource")
        if not base_url and resource:
            base_url, from_resource = resource_url(str(resource), "openai"), True
    if not base_url and preset.base_url is not None:
        base_url = _fill(preset, options, env, name)
    if not base_url:
        hint = (
            "AZURE_OPENAI_ENDPOINT, providers={..: {'resource': ...}} or " if preset.azure else ""
        )
        raise ConfigurationError(
            f"provider {name!r} needs a base URL: set {hint}providers={{{name!r}: "
            "{'base_url': 'http://host:port/v1'}}",
            provider=name,
        )
    base_url = base_url.rstrip("/")
    if not preset.azure:
        return Endpoint(base_url)
    option = options.get("api_version")
    version = str(option) if option else env.get("OPENAI_API_VERSION") or AZURE_API_VERSION
    v1 = (
        base_url.endswith(_AZURE_V1)
        or option == "v1"
        or (from_resource and not option)
        or preset.api == "responses"
    )
    if not v1:
        return Endpoint(base_url, api_version=version)
    if not base_url.endswith(_AZURE_V1):
        base_url += _AZURE_V1
    return Endpoint(base_url)

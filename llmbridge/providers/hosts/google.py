"""The Google Cloud host: Vertex AI's endpoints and location (pure, no IO).

Shared by ``vertex`` (Gemini) and ``anthropic-vertex`` (Claude); credentials and project come
from ``llmbridge.auth.google.google_credential``. Rules:

* The host of a location (``vertex_origin``): ``aiplatform.googleapis.com`` for ``global``,
  the multi-region hosts ``aiplatform.{us|eu}.rep.googleapis.com`` for ``us`` / ``eu``, else
  ``{location}-aiplatform.googleapis.com``.
* Location (``vertex_location``): the provider's options in order (``location``, then any the
  provider names), the provider's variables, ``GOOGLE_CLOUD_LOCATION``, else ``global``.
* Path values (project, location, model) are percent-encoded where the provider builds its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LOCATION_VARS", "vertex_location", "vertex_origin"]

LOCATION_VARS = ("GOOGLE_CLOUD_LOCATION",)
"""Where a location comes from after the options (a host may name its own variables first)."""
_HOSTS = {
    "global": "aiplatform.googleapis.com",
    "us": "aiplatform.us.rep.googleapis.com",
    "eu": "aiplatform.eu.rep.googleapis.com",
}


def vertex_origin(location: str) -> str:
    """``https://`` + the Vertex AI host serving ``location``."""
    return "https://" + _HOSTS.get(location, f"{location}-aiplatform.googleapis.com")


def vertex_location(
    options: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    names: tuple[str, ...] = ("location",),
    env_vars: tuple[str, ...] = (),
) -> str:
    """The location a provider's ``options`` and ``env`` name (see the module rules)."""
    for value in (*(options.get(n) for n in names), *(env.get(v) for v in env_vars)):
        if value:
            return str(value)
    return next((env[v] for v in LOCATION_VARS if env.get(v)), "global")

"""``anthropic-vertex:<model>``: Claude on Google Cloud Vertex AI (``:streamRawPredict``).

Follows the ``anthropic`` SDK 2.14's ``AnthropicVertex`` and
https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude. Rules:

* ``POST {base}/projects/{project}/locations/{location}/publishers/anthropic/models/{model}:streamRawPredict``
  where ``base`` is the location's Vertex AI host (``providers.hosts.google``, shared with
  ``vertex``) + ``/v1``, or ``base_url`` / ``ANTHROPIC_VERTEX_BASE_URL``.
* Project: option ``project``, ``ANTHROPIC_VERTEX_PROJECT_ID``, ``GOOGLE_CLOUD_PROJECT``, the
  credentials' project. Location: option ``location`` (or ``region``), ``CLOUD_ML_REGION``,
  ``GOOGLE_CLOUD_LOCATION``, else ``global``.
* ``stream=False``: ``:rawPredict`` (the body without ``stream``; the answer is the Messages
  body).
* The Messages body without ``model`` (``stream: true`` stays), ``anthropic_version`` in the
  body (no header); beta flags in the ``anthropic-beta`` header only, as the SDK sends them.
* Credentials in the Google precedence (``llmbridge.auth.google``, shared with ``vertex``): an
  ``access_token`` option (or ``api_key``), ``auth`` / ``token_provider``, else Google
  Application Default Credentials (``llmbridge[google]``), always ``Authorization: Bearer``.
* Token counting: ``.../publishers/anthropic/models/count-tokens:rawPredict`` (body keeps
  ``model``). Vertex runs the web search server tool only; no ``/v1/models``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ...auth.google import GOOGLE_OPTIONS
from ..config import ProviderConfig
from ..hosts.google import vertex_location, vertex_origin
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, CountsTokensRoute, env_of, first, required
from .credentials import google_credential

__all__ = ["AnthropicVertexProvider", "create", "vertex_base_url"]

NAME = "anthropic-vertex"


def vertex_base_url(location: str) -> str:
    """The Messages base of ``location``: its Vertex AI host + ``/v1``."""
    return f"{vertex_origin(location)}/v1"


class AnthropicVertexProvider(CountsTokensRoute):
    version_in_body = True
    hosted_tools: frozenset[str] = frozenset({"web_search", "tool_search"})

    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        options = config.options
        credential, project = google_credential(
            config, provider=name, project_vars=("ANTHROPIC_VERTEX_PROJECT_ID",)
        )
        self.project = required(
            project,
            provider=name,
            what="a Google Cloud project",
            how="pass providers={'anthropic-vertex': {'project': ...}} or set GOOGLE_CLOUD_PROJECT",
        )  # fmt: skip
        self.location = vertex_location(
            options, env, names=("location", "region"), env_vars=("CLOUD_ML_REGION",)
        )
        base_url = first(config.base_url, env.get("ANTHROPIC_VERTEX_BASE_URL"))
        super().__init__(
            config,
            name=name,
            base_url=base_url or vertex_base_url(self.location),
            credential=credential,
        )

    def _models_path(self) -> str:
        project, location = quote(self.project, safe=""), quote(self.location, safe="")
        return (
            f"{self.base_url}/projects/{project}/locations/{location}/publishers/anthropic/models"
        )

    def messages_url(self, model: str) -> str:
        return f"{self._models_path()}/{quote(model, safe='@')}:streamRawPredict"

    def whole_url(self, model: str) -> str:
        """``:rawPredict``: the Messages body as the answer (``stream=False``)."""
        return f"{self._models_path()}/{quote(model, safe='@')}:rawPredict"

    def count_url(self, model: str) -> str:
        return f"{self._models_path()}/count-tokens:rawPredict"

    def adapt_body(self, body: dict[str, Any], *, betas: list[str], count: bool) -> dict[str, Any]:
        if not count:
            body.pop("model", None)
        return super().adapt_body(body, betas=betas, count=count)


def create(config: ProviderConfig) -> AnthropicVertexProvider:
    """Registry factory for ``anthropic-vertex``."""
    return AnthropicVertexProvider(config)


declare_options(create, CLOUD_OPTIONS | GOOGLE_OPTIONS | {"location", "region"})

"""``anthropic-google-cloud:<model>``: Claude on Google Cloud, Anthropic-managed.

Follows the ``anthropic`` SDK 2.14's ``AnthropicGoogleCloud``: the first-party API proxied
verbatim through Google's gateway. Rules:

* Base ``https://claude.googleapis.com/v1/projects/{project}/locations/{location}/workspaces/{workspace}/invoke``
  (``base_url`` / ``ANTHROPIC_GOOGLE_CLOUD_BASE_URL`` replace it), then the first-party paths
  (``/v1/messages``, ``/v1/messages/count_tokens``, ``/v1/models``), body and
  ``anthropic-version`` header.
* Project: option ``project``, ``ANTHROPIC_GOOGLE_CLOUD_PROJECT``, ``GOOGLE_CLOUD_PROJECT``, the
  credentials'. Location: option ``location``, ``ANTHROPIC_GOOGLE_CLOUD_LOCATION``, else
  ``global``. Workspace: option ``workspace_id`` / ``ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID``.
* Credentials in the Google precedence (``llmbridge.auth.google``): a Google bearer token
  (``access_token`` option, ``token_provider`` / ``auth``, else Application Default
  Credentials, ``llmbridge[google]``); never an Anthropic key.
* Every Anthropic feature the first-party API has.
"""

from __future__ import annotations

from urllib.parse import quote

from ...auth.google import GOOGLE_OPTIONS
from ..config import ProviderConfig
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, CountsTokensRoute, ListsModelsRoute, env_of, first, required
from .credentials import google_credential

__all__ = ["AnthropicGoogleCloudProvider", "create"]

NAME = "anthropic-google-cloud"
ORIGIN = "https://claude.googleapis.com"


class AnthropicGoogleCloudProvider(CountsTokensRoute, ListsModelsRoute):
    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        options = config.options
        credential, project = google_credential(
            config, provider=name, project_vars=("ANTHROPIC_GOOGLE_CLOUD_PROJECT",)
        )
        base_url = first(config.base_url, env.get("ANTHROPIC_GOOGLE_CLOUD_BASE_URL"))
        if base_url is None:
            project = required(
                project,
                provider=name,
                what="a Google Cloud project",
                how="pass providers={'anthropic-google-cloud': {'project': ...}} or set "
                "ANTHROPIC_GOOGLE_CLOUD_PROJECT",
            )
            location = first(options.get("location"), env.get("ANTHROPIC_GOOGLE_CLOUD_LOCATION"),
                             "global") or "global"  # fmt: skip
            workspace = required(
                first(options.get("workspace_id"), env.get("ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID")),
                provider=name,
                what="a workspace id",
                how="pass providers={'anthropic-google-cloud': {'workspace_id': ...}} or set "
                "ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID",
            )
            parts = [quote(p, safe="") for p in (project, location, workspace)]
            base_url = "{}/v1/projects/{}/locations/{}/workspaces/{}/invoke".format(ORIGIN, *parts)
        super().__init__(config, name=name, base_url=base_url, credential=credential)

    def messages_url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"


def create(config: ProviderConfig) -> AnthropicGoogleCloudProvider:
    """Registry factory for ``anthropic-google-cloud``."""
    return AnthropicGoogleCloudProvider(config)


declare_options(create, CLOUD_OPTIONS | GOOGLE_OPTIONS | {"location", "workspace_id"})

"""Which credential a cloud request carries: each host's one precedence, as a ``Credential``.

The precedence itself is written once per host in ``llmbridge.auth`` and shared with the other
providers that host serves; this module only turns its answer into the clouds' ``Credential``
(a key sent in headers, or an ``httpx.Auth``). Rules (each resolved once, when the provider is
built; nothing here touches the network):

* Key clouds (``key_credential``, Foundry): a key (option, then the cloud's variables) or the
  app's ``auth`` / ``token_provider`` (an Entra ID token), never both
  (``llmbridge.auth.key_or_auth``).
* AWS clouds (``aws_credential``): ``llmbridge.auth.aws.aws_credential`` with the cloud's key
  variables and signing service (the app's auth; ``api_key``; explicit AWS credentials or a
  ``profile`` → SigV4; the key variables; the default chain → SigV4) and the region it found.
* Google clouds (``google_credential``): ``llmbridge.auth.google.google_credential`` with the
  cloud's project variables (a token, the app's auth, else Application Default Credentials)
  and the project it found.
"""

from __future__ import annotations

from ...auth import key_or_auth
from ..config import ProviderConfig
from .base import Credential

__all__ = ["aws_credential", "google_credential", "key_credential"]


def key_credential(
    config: ProviderConfig,
    *,
    provider: str,
    key_vars: tuple[str, ...],
    key_headers: tuple[str, ...] = ("authorization",),
) -> Credential:
    """A key (option, then ``key_vars``) or the app's ``auth`` / ``token_provider``; one is
    required."""
    key, auth = key_or_auth(config, provider=provider, key_vars=key_vars)
    if auth is not None:
        return Credential(auth=auth)
    return Credential(key=key, key_headers=key_headers)


def aws_credential(
    config: ProviderConfig, *, provider: str, service: str, key_vars: tuple[str, ...]
) -> tuple[Credential, str | None]:
    """The credential of an AWS cloud and the region found for it (None: none named)."""
    from ...auth.aws import aws_credential as resolve

    found = resolve(config, service=service, provider=provider, key_vars=key_vars)
    return Credential(key=found.key, auth=found.auth), found.region


def google_credential(
    config: ProviderConfig, *, provider: str, project_vars: tuple[str, ...]
) -> tuple[Credential, str | None]:
    """The credential of a Google cloud and the project named for it or by its credentials."""
    from ...auth.google import google_credential as resolve

    found = resolve(config, provider=provider, project_vars=project_vars)
    return Credential(key=found.key, auth=found.auth), found.project

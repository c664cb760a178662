"""Which credential a cloud request carries, in the precedence the ``anthropic`` SDK uses.

Rules (each resolved once, when the provider is built; nothing here touches the network):

* An ``auth`` (``httpx.Auth``) or ``token_provider`` option wins and is sent as given
  (``llmbridge.auth.config_auth``); with a key as well it is a ``ConfigurationError`` (the SDK's
  clients refuse both too).
* AWS clouds (``aws_credential``): an explicit ``api_key`` → ``Authorization: Bearer``; explicit
  AWS credentials (``aws_access_key_id`` / ``aws_secret_access_key``) or a ``profile`` → SigV4;
  else the cloud's key variable → bearer; else the default credential chain and SigV4
  (``llmbridge.auth.aws.aws_auth`` with the cloud's signing service). ``aws_region``: the
  region option, ``AWS_REGION``, ``AWS_DEFAULT_REGION``, else the signer's.
* Google clouds (``google_credential``): an ``access_token`` option (or ``api_key``) → bearer;
  else Application Default Credentials (``llmbridge.auth.google.google_auth``), which may also
  name the project.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import httpx

from ...errors import ConfigurationError
from ...secrets import clean_credential
from ..base import ProviderConfig, Secret
from .base import Credential, env_of, first, required

__all__ = ["aws_credential", "aws_region", "configured_auth", "google_credential", "key_credential"]

_AWS_KEYS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token", "profile")


def configured_auth(config: ProviderConfig) -> httpx.Auth | None:
    """The app's own ``auth`` / ``token_provider`` as an ``httpx.Auth`` (None: none given)."""
    from ...auth import config_auth

    return config_auth(config)


def _env_key(env: Mapping[str, str], names: tuple[str, ...]) -> Secret | None:
    for name in names:
        if env.get(name):
            return Secret(clean_credential(env[name], what=f"${name}"))
    return None


def key_credential(
    config: ProviderConfig,
    *,
    provider: str,
    key_vars: tuple[str, ...],
    key_headers: tuple[str, ...] = ("authorization",),
) -> Credential:
    """A key (option, then ``key_vars``) or the app's ``auth`` / ``token_provider``; one is
    required."""
    auth = configured_auth(config)
    if auth is not None:
        if config.api_key is not None:
            raise ConfigurationError(
                f"provider {provider!r}: give either api_key or auth/token_provider, not both",
                provider=provider,
            )
        return Credential(auth=auth)
    key = config.key(*key_vars, provider=provider)
    return Credential(key=key, key_headers=key_headers)


def aws_credential(
    config: ProviderConfig, *, provider: str, service: str, key_vars: tuple[str, ...]
) -> tuple[Credential, str | None]:
    """The credential of an AWS cloud and the region its signer resolved (None: a key)."""
    auth = configured_auth(config)
    if auth is not None:
        return Credential(auth=auth), None
    explicit_aws = any(config.options.get(k) for k in _AWS_KEYS)
    if config.api_key is not None:
        if explicit_aws:
            raise ConfigurationError(
                f"provider {provider!r}: give either api_key or AWS credentials, not both",
                provider=provider,
            )
        return Credential(key=config.api_key), None
    if not explicit_aws:
        key = _env_key(env_of(config), key_vars)
        if key is not None:
            return Credential(key=key), None
    from ...auth.aws import aws_auth

    # The cloud's own key variables were looked at above: the signer must not take
    # AWS_BEARER_TOKEN_BEDROCK (Bedrock's key) for another service's bearer.
    env = {k: v for k, v in env_of(config).items() if k != "AWS_BEARER_TOKEN_BEDROCK"}
    signer = aws_auth(replace(config, env=env), service=service, provider=provider)
    return Credential(auth=signer.auth), signer.region


def aws_region(
    config: ProviderConfig, *, provider: str, registry_name: str, signer_region: str | None
) -> str:
    """The region of an AWS cloud: the ``region`` option, ``AWS_REGION``, ``AWS_DEFAULT_REGION``,
    else the one the signer resolved; none is a ``ConfigurationError`` telling how to set it
    (under ``registry_name``, the provider's registry key)."""
    env = env_of(config)
    return required(
        first(config.options.get("region"), env.get("AWS_REGION"),
              env.get("AWS_DEFAULT_REGION"), signer_region),
        provider=provider,
        what="an AWS region",
        how=f"pass providers={{{registry_name!r}: {{'region': 'us-east-1'}}}} or set AWS_REGION",
    )  # fmt: skip


def google_credential(config: ProviderConfig, *, provider: str) -> tuple[Credential, str | None]:
    """The credential of a Google cloud and the project the credentials name (if any)."""
    options: Mapping[str, Any] = config.options
    token = options.get("access_token")
    auth = configured_auth(config)
    if token or config.api_key is not None:
        if auth is not None:
            raise ConfigurationError(
                f"provider {provider!r}: give either a token or auth/token_provider, not both",
                provider=provider,
            )
        key = Secret(str(token)) if token else config.api_key
        return Credential(key=key), None
    if auth is not None:
        return Credential(auth=auth), None
    from ...auth.google import google_auth

    adc = google_auth(config, provider=provider)
    return Credential(auth=adc.auth), adc.project

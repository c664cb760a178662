"""Authentication: every credential is an ``httpx.Auth``, run by the transport on every attempt.

``Client(providers={name: {"auth": <httpx.Auth>}})`` brings any scheme; ``{"token_provider":
fn}`` (sync or async, returning a bearer token) becomes a ``TokenProviderAuth``. Cloud helpers
build theirs from a ``ProviderConfig``: ``llmbridge.auth.aws.aws_auth`` (botocore's credential
chain and SigV4, or a Bedrock API key; the ``bedrock`` extra) and
``llmbridge.auth.google.google_auth`` (Application Default Credentials; the ``google`` extra).
Each cloud's credential precedence is written here once, for every provider it hosts:
``aws.aws_credential`` (AWS), ``google.google_credential`` (Google Cloud), ``key_or_auth``
(a key or an Entra ID / app token: Azure). Importing this package loads neither botocore nor
google-auth.
"""

from __future__ import annotations

from .bearer import (
    REFRESH_MARGIN,
    TOKEN_TIMEOUT,
    BearerAuth,
    Token,
    TokenProvider,
    TokenProviderAuth,
    auth_secrets,
    config_auth,
    key_or_auth,
)
from .refresh import SharedRefresh

__all__ = [
    "REFRESH_MARGIN",
    "TOKEN_TIMEOUT",
    "BearerAuth",
    "SharedRefresh",
    "Token",
    "TokenProvider",
    "TokenProviderAuth",
    "auth_secrets",
    "config_auth",
    "key_or_auth",
]

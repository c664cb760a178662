"""The options a provider is built from: ``ProviderConfig`` (``Client(providers={name: {...}})``),
its credentials cleaned once when it is made (``llmbridge.secrets``), its secrets named for the
scrubbers, its key looked up in the configured environment.

Re-exported by ``llmbridge.providers.base``, where plug-ins import it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..errors import ConfigurationError, UsageError
from ..secrets import (
    REDACTED,
    Secret,
    clean_credential,
    clean_named,
    clean_secret,
    is_secret_name,
    named_secrets,
    secret_values,
)

__all__ = ["ProviderConfig"]


_FIELDS = ("base_url", "headers", "env", "token_provider", "token_timeout")  # from_mapping's


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """Options a provider is built from (``Client(providers={name: {...}})``)."""

    api_key: Secret | None = None
    base_url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    """Anything provider-specific (Azure ``api_version``, Vertex ``project`` / ``location``)."""
    env: Mapping[str, str] | None = None
    """Where to look up key variables; ``None`` means ``os.environ`` at build time."""
    auth: httpx.Auth | None = None
    """An ``httpx.Auth`` run on every request (a ``str`` here, such as ``"x-api-key"``, keeps its
    header-style meaning and is moved to ``options["auth"]``, where providers read it)."""
    token_provider: Callable[[], Any] | None = None
    """A callable, sync or async, returning a bearer token: becomes ``auth`` (a
    ``llmbridge.auth.TokenProviderAuth``)."""
    token_timeout: float | None = None
    """Seconds a ``token_provider`` call may take (``None``: ``auth.TOKEN_TIMEOUT``, 30 s)."""

    def __post_init__(self) -> None:
        self._clean_credentials()
        options = dict(self.options)
        auth: Any = self.auth
        if isinstance(options.get("auth"), httpx.Auth) or "token_provider" in options:
            if auth is None and isinstance(options.get("auth"), httpx.Auth):
                auth = options.pop("auth")
            if self.token_provider is None and "token_provider" in options:
                object.__setattr__(self, "token_provider", options.pop("token_provider"))
            object.__setattr__(self, "options", options)
        option = options.get("auth")
        if option is not None and not isinstance(option, (str, httpx.Auth)):
            auth = option  # refused below
        if isinstance(auth, str):  # today's header-style auth
            object.__setattr__(self, "options", {**options, "auth": auth})
            auth = None
        if self.token_provider is not None:
            from ..auth.bearer import TokenProviderAuth

            wraps = (
                isinstance(auth, TokenProviderAuth) and auth.token_provider is self.token_provider
            )
            if auth is not None and not wraps:
                raise ConfigurationError("pass auth or token_provider, not both")
            if not wraps:
                bound = {} if self.token_timeout is None else {"timeout": self.token_timeout}
                auth = TokenProviderAuth(self.token_provider, **bound)
        if auth is not None and not isinstance(auth, httpx.Auth):
            raise UsageError(_auth_refused(auth))
        object.__setattr__(self, "auth", auth)

    def _clean_credentials(self) -> None:
        """Keys, credential options and headers cleaned (``secrets.clean_credential``)."""
        if self.api_key is not None:
            object.__setattr__(self, "api_key", clean_secret(self.api_key, what="the api_key"))
        for name in ("options", "headers"):
            cleaned = clean_named(getattr(self, name), refuse=name == "headers")
            if cleaned is not None:
                object.__setattr__(self, name, cleaned)

    def __repr__(self) -> str:
        def shown(name: str, value: Any) -> Any:
            return REDACTED if is_secret_name(name) else value

        options = {k: shown(k, v) for k, v in self.options.items()}
        headers = {k: shown(k, v) for k, v in self.headers.items()}
        env = None if self.env is None else {k: REDACTED for k in self.env}
        auth = "" if self.auth is None else f", auth={type(self.auth).__name__}"
        return (
            f"ProviderConfig(api_key={self.api_key!r}, base_url={self.base_url!r}, "
            f"headers={headers!r}, options={options!r}, env={env!r}{auth})"
        )

    def secrets(self) -> set[str]:
        """Every credential value this config carries (for scrubbing recordings and errors)."""
        found = secret_values(self.api_key)
        for mapping in (self.options, self.headers, self.env or {}):
            found |= named_secrets(mapping.items())
        if self.auth is not None:
            from ..auth.bearer import auth_secrets

            found |= auth_secrets(self.auth)  # the tokens it fetched so far
        return found

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | ProviderConfig | None) -> ProviderConfig:
        if isinstance(data, ProviderConfig):
            return data
        data = dict(data or {})
        key = data.pop("api_key", None)
        known: dict[str, Any] = {k: data.pop(k) for k in _FIELDS if k in data}
        if isinstance(data.get("auth"), httpx.Auth):  # a str stays an option (header style)
            known["auth"] = data.pop("auth")
        return cls(
            api_key=key if isinstance(key, Secret) or key is None else Secret(str(key)),
            options=data,
            **known,
        )

    def key(self, *env_vars: str, provider: str, required: bool = True) -> Secret | None:
        """The API key: the configured one, else the first set environment variable. With
        ``auth`` or ``token_provider`` configured, only a configured key (none is required)."""
        if self.api_key is not None or self.auth is not None:
            return self.api_key
        env = os.environ if self.env is None else self.env
        for var in env_vars:
            if env.get(var):
                return Secret(clean_credential(env[var], what=f"${var}", provider=provider))
        if required:
            where = " or ".join(env_vars) if env_vars else "api_key"
            raise ConfigurationError(
                f"no API key for provider {provider!r}: pass providers={{{provider!r}: "
                f"{{'api_key': ...}}}} or set {where}",
                provider=provider,
            )
        return None


def _auth_refused(auth: Any) -> str:
    """Why ``auth`` is refused; a function was most likely meant as a ``token_provider``."""
    takes = "auth takes an httpx.Auth (or a header-style name such as 'x-api-key')"
    if callable(auth):
        return (
            f"{takes}, not a function: a function that returns a token (sync or async) is a "
            "token_provider: pass {'token_provider': fn} instead of {'auth': fn}"
        )
    return f"{takes}, not a {type(auth).__name__}"

"""Bearer tokens as ``httpx.Auth``: a fixed token, or a token provider called as needed.

Rules:

* ``TokenProviderAuth(token_provider)``: ``token_provider`` is a callable, sync or async
  (``inspect.iscoroutinefunction`` or an awaitable result), returning the token as a ``str`` —
  called on every attempt, as the official SDKs call theirs (azure-identity's
  ``get_bearer_token_provider`` caches and refreshes on its own) — or an object with ``token``
  and ``expires_on`` (epoch seconds, like azure-identity's ``AccessToken``), then cached until
  ``REFRESH_MARGIN`` seconds before it expires. A sync provider runs in a worker thread.
* Concurrent requests share one call in flight (``SharedRefresh``).
* A 401 answer: the token is refused, one new one is fetched (or the one another request
  already fetched is taken) and the request is sent once more. A second 401 is the answer.
* A provider that raises, or returns no token, is an ``AuthenticationError`` naming the
  provider's exception; the token never appears in a repr, log or error.
* A call is bounded: a provider that gives no token within ``timeout`` seconds
  (``TOKEN_TIMEOUT``, 30 s as google-auth bounds its token requests; the ``token_timeout``
  provider option) is an ``AuthenticationError``, not retried, raised in every request waiting
  for it; the next request calls it again. A sync provider still running in its worker thread
  is left to finish there (a thread cannot be stopped), its result unused.
* Tokens are stripped of surrounding whitespace; one with a control character inside is an
  ``AuthenticationError`` that never shows it (no HTTP header can carry it).
* Every auth here (and ``SigV4Auth``) is an ``AsyncOnlyAuth``: the sync flow is a
  ``UsageError``, llmbridge's IO being async.
* ``config_auth(config)``: the ``httpx.Auth`` a ``ProviderConfig`` asks for, or ``None``;
  ``key_or_auth(config, ...)``: a key or that auth, never both (a ``ConfigurationError``: the
  official SDKs' Azure and Foundry clients refuse both too), the one rule of every host where an
  app may swap its key for a token (Azure OpenAI, Foundry, Responses hosts).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

import anyio
import httpx

from ..errors import AuthenticationError, ConfigurationError, LLMBridgeError, UsageError
from ..secrets import Secret, clean_credential
from .refresh import SharedRefresh, in_thread

__all__ = [
    "REFRESH_MARGIN",
    "TOKEN_TIMEOUT",
    "BearerAuth",
    "Token",
    "TokenProvider",
    "TokenProviderAuth",
    "auth_secrets",
    "config_auth",
    "key_or_auth",
]

REFRESH_MARGIN = 300.0
"""Seconds before its expiry that a cached token is refreshed (tokens are not used to the end:
the request still has to reach the server, and clocks differ)."""

TOKEN_TIMEOUT = 30.0
"""Seconds a ``token_provider`` call may take before it is an ``AuthenticationError`` (the bound
google-auth puts on its own token requests)."""

TokenProvider: TypeAlias = Callable[[], Any]
"""A callable, sync or async, returning a bearer token (``str``) or an ``AccessToken``-like
object with ``token`` and ``expires_on`` (epoch seconds)."""


@dataclass(frozen=True, slots=True)
class Token:
    """A bearer token and when it expires (epoch seconds; ``None``: unknown, not cached)."""

    value: Secret
    expires_at: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Headers sent beside the token (e.g. Google's ``x-goog-user-project``)."""

    def fresh(self, margin: float = REFRESH_MARGIN, *, now: float | None = None) -> bool:
        if self.expires_at is None:
            return False
        return self.expires_at - (time.time() if now is None else now) > margin

    def __repr__(self) -> str:
        return f"Token(value={self.value!r}, expires_at={self.expires_at!r})"


def _usage() -> UsageError:
    return UsageError(
        "llmbridge auth objects work with httpx.AsyncClient (llmbridge's own IO), not the "
        "sync httpx.Client"
    )


class AsyncOnlyAuth(httpx.Auth):
    """An ``httpx.Auth`` for ``httpx.AsyncClient`` only: the sync flow is a ``UsageError``."""

    def sync_auth_flow(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, None]:
        raise _usage()


class BearerAuth(AsyncOnlyAuth):
    """A fixed bearer token (``Authorization: Bearer <token>``), e.g. a Bedrock API key."""

    def __init__(self, token: Secret | str) -> None:
        value = token.reveal() if isinstance(token, Secret) else token
        self._token = Secret(clean_credential(value, what="the bearer token"))

    def __repr__(self) -> str:
        return "BearerAuth(token=<redacted>)"

    def secrets(self) -> set[str]:
        return {self._token.reveal()}

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        request.headers["authorization"] = f"Bearer {self._token.reveal()}"
        yield request


class RefreshingBearerAuth(AsyncOnlyAuth):
    """A bearer token from a ``SharedRefresh``: sent on every attempt, one retry after a 401."""

    def __init__(self, tokens: SharedRefresh[Token]) -> None:
        self.tokens = tokens

    def secrets(self) -> set[str]:
        return self.tokens.secrets()

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        token = await self.tokens.get()
        _apply(request, token)
        response = yield request
        if response.status_code == 401:
            await response.aread()  # free the connection before the retry
            _apply(request, await self.tokens.get(reject=token))
            yield request


def _apply(request: httpx.Request, token: Token) -> None:
    request.headers["authorization"] = f"Bearer {token.value.reveal()}"
    request.headers.update(token.headers)


def _as_token(result: Any, *, name: str) -> Token:
    if isinstance(result, Secret):
        result = result.reveal()
    value: Any = result
    expires: Any = None
    if not isinstance(result, str):
        value = getattr(result, "token", None)
        expires = getattr(result, "expires_on", None)
        if expires is None:
            expires = getattr(result, "expires_at", None)
    if isinstance(value, str):
        try:
            value = clean_credential(value, what=f"the token of the token provider {name}")
        except ConfigurationError as exc:
            raise AuthenticationError(exc.message) from None
    if not isinstance(value, str) or not value:
        raise AuthenticationError(
            f"the token provider {name} returned no token (a {type(result).__name__}; expected a "
            "str or an object with .token and .expires_on)"
        )
    return Token(Secret(value), float(expires) if isinstance(expires, (int, float)) else None)


def _describe(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


class TokenProviderAuth(RefreshingBearerAuth):
    """``Authorization: Bearer <token_provider()>``: see the module rules."""

    def __init__(
        self,
        token_provider: TokenProvider,
        *,
        margin: float = REFRESH_MARGIN,
        timeout: float | None = TOKEN_TIMEOUT,
    ) -> None:
        if not callable(token_provider):
            raise UsageError(
                f"token_provider must be a callable returning a token, not a "
                f"{type(token_provider).__name__}"
            )
        number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        if timeout is not None and not (number and timeout > 0):
            raise UsageError(f"token_timeout takes seconds (a number over 0), not {timeout!r}")
        self.token_provider = token_provider
        self.timeout = timeout
        """Seconds one call may take (``None``: unbounded)."""
        self._name = _describe(token_provider)
        super().__init__(
            SharedRefresh(
                self._call,
                fresh=lambda token: token.fresh(margin),
                secrets=lambda token: (token.value.reveal(),),
            )
        )

    def __repr__(self) -> str:
        return f"TokenProviderAuth({self._name})"

    async def _call(self) -> Token:
        with anyio.move_on_after(self.timeout) as scope:  # None: no bound
            return await self._called()
        assert scope.cancelled_caught
        raise AuthenticationError(
            f"the token provider {self._name} gave no token within {self.timeout:g} s "
            "(token_timeout= sets the bound)"
        )

    async def _called(self) -> Token:
        provider = self.token_provider
        try:
            if inspect.iscoroutinefunction(provider) or inspect.iscoroutinefunction(
                getattr(provider, "__call__", None)  # noqa: B004 - an async __call__ method
            ):
                result = await provider()
            else:
                result = await in_thread(provider, abandon_on_cancel=True)
                if inspect.isawaitable(result):
                    result = await _await(result)
        except LLMBridgeError:
            raise
        except Exception as exc:
            detail = str(exc)[:300]
            raise AuthenticationError(
                f"the token provider {self._name} failed: {type(exc).__name__}"
                + (f": {detail}" if detail else "")
            ) from exc
        return _as_token(result, name=self._name)


async def _await(value: Awaitable[Any]) -> Any:
    return await value


def auth_secrets(auth: object) -> set[str]:
    """The secrets an auth object has sent so far (its ``secrets()``; none if it has none)."""
    method = getattr(auth, "secrets", None)
    if not callable(method):
        return set()
    found = method()
    return (
        {s for s in found if isinstance(s, str)} if isinstance(found, (set, frozenset)) else set()
    )


class HasAuth(Protocol):
    """What ``config_auth`` reads of a ``llmbridge.providers.base.ProviderConfig`` (auth sits
    below the providers and imports nothing of them)."""

    @property
    def auth(self) -> httpx.Auth | None: ...


def config_auth(config: HasAuth) -> httpx.Auth | None:
    """The ``httpx.Auth`` ``config`` asks for (its ``auth`` object, or its ``token_provider``
    wrapped in a ``TokenProviderAuth``), or ``None`` for the key path."""
    return config.auth


def key_or_auth(
    config: Any, *, provider: str, key_vars: tuple[str, ...], required: bool = True
) -> tuple[Secret | None, httpx.Auth | None]:
    """The key (``api_key``, else the first of ``key_vars``) or the config's auth, never both;
    one is required unless ``required`` is false."""
    auth = config_auth(config)
    if auth is not None and config.api_key is not None:
        raise ConfigurationError(
            f"provider {provider!r}: give either api_key or auth / token_provider (e.g. an "
            "Entra ID token), not both",
            provider=provider,
        )
    key: Secret | None = config.key(*key_vars, provider=provider, required=required)
    return key, auth

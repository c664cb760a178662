"""Google Application Default Credentials as an ``httpx.Auth`` (the ``google`` extra).

Rules:

* Credentials come from ``google.auth.default(scopes=[CLOUD_PLATFORM])`` — a service-account
  file (``GOOGLE_APPLICATION_CREDENTIALS``), ``gcloud auth application-default login``, workload
  identity, the metadata server — or from the ``credentials`` option (any google-auth
  ``Credentials``, e.g. impersonated ones).
* google-auth is blocking: loading and refreshing run in a worker thread, never on the event
  loop. The refresh's own HTTP goes through ``httpx.Client`` in that thread (no ``requests``).
* A token is refreshed ``REFRESH_MARGIN`` seconds before it expires; concurrent requests share
  one refresh; a 401 causes one refresh and one retry (``RefreshingBearerAuth``).
* Precedence (``google_credential``, the one rule of every Google-hosted provider: ``vertex``,
  ``anthropic-vertex``, ``anthropic-google-cloud``): an ``access_token`` option or ``api_key`` is
  a bearer token (with ``auth`` / ``token_provider`` as well: a ``ConfigurationError``); else
  the app's ``auth`` / ``token_provider``; else Application Default Credentials.
* Project: the ``project`` option, then the host's variables (``project_vars``; always ending in
  ``GOOGLE_CLOUD_PROJECT``), then the credentials'. Only when neither option nor environment
  names it are the credentials loaded at build time (once, blocking: a file read, or the
  metadata server on Google Cloud).
* google-auth is imported lazily: without it, a ``ConfigurationError`` names
  ``llmbridge[google]``. Tokens never show in reprs or errors.
"""

from __future__ import annotations

import calendar
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import AuthenticationError, ConfigurationError, ConnectionError, LLMBridgeError
from ..secrets import Secret
from .bearer import REFRESH_MARGIN, RefreshingBearerAuth, Token
from .refresh import SharedRefresh, in_thread

__all__ = [
    "CLOUD_PLATFORM",
    "GOOGLE_OPTIONS",
    "PROJECT_VARS",
    "GoogleAuth",
    "GoogleCredential",
    "google_auth",
    "google_credential",
]

GOOGLE_OPTIONS = frozenset({"credentials", "project", "access_token"})
"""The provider options ``google_credential`` reads."""
PROJECT_VARS = ("GOOGLE_CLOUD_PROJECT",)
"""Where a project comes from after the ``project`` option (a host may name its own first)."""

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
TOKEN_TIMEOUT = 30.0
"""Seconds a token-endpoint call (in the worker thread) may take."""


def _require_google(provider: str) -> Any:
    try:
        import google.auth
        import google.auth.exceptions
        import google.auth.transport
    except ImportError as exc:
        raise ConfigurationError(
            f"provider {provider!r} without a token uses Google Application Default "
            "Credentials, which need google-auth: pip install 'llmbridge[google]' (or pass "
            "an access token)",
            provider=provider,
        ) from exc
    return google.auth


@dataclass(frozen=True, slots=True)
class GoogleAuth:
    """What ``google_auth`` gives a provider: the ``httpx.Auth`` and the project (if known)."""

    auth: httpx.Auth
    project: str | None


class _HttpxResponse:
    """google-auth's ``transport.Response`` over an ``httpx.Response``."""

    def __init__(self, response: httpx.Response) -> None:
        self.status = response.status_code
        self.headers = response.headers
        self.data = response.content


class _HttpxRequest:
    """google-auth's ``transport.Request`` over a sync ``httpx.Client`` (worker threads only)."""

    def __init__(self, client: httpx.Client) -> None:
        self._client = client

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _HttpxResponse:
        from google.auth.exceptions import TransportError as GoogleTransportError

        try:
            response = self._client.request(
                method, url, content=body, headers=headers, timeout=timeout or TOKEN_TIMEOUT
            )
        except httpx.HTTPError as exc:
            raise GoogleTransportError(f"{type(exc).__name__}: {exc}") from exc  # type: ignore[no-untyped-call]
        return _HttpxResponse(response)


class _AdcSource:
    """The credentials and their refresh (blocking: call from a worker thread)."""

    def __init__(self, *, provider: str, scopes: Sequence[str], credentials: Any = None) -> None:
        self.provider = provider
        self._scopes = list(scopes)
        self._credentials = credentials
        self._project: str | None = None
        self._lock = threading.Lock()

    def load(self) -> tuple[Any, str | None]:
        with self._lock:
            if self._credentials is None:
                google_auth = _require_google(self.provider)
                with _translated(self.provider):
                    self._credentials, self._project = google_auth.default(scopes=self._scopes)
            elif self._project is None:
                self._project = getattr(self._credentials, "project_id", None)
            return self._credentials, self._project

    def fetch(self) -> Token:
        credentials, _ = self.load()
        with _translated(self.provider), httpx.Client() as client:
            credentials.refresh(_HttpxRequest(client))
            headers: dict[str, str] = {}
            credentials.apply(headers)
        token = credentials.token
        if not isinstance(token, str) or not token:
            raise AuthenticationError(
                "the Google credentials gave no access token after a refresh",
                provider=self.provider,
            )
        expiry = getattr(credentials, "expiry", None)
        expires = float(calendar.timegm(expiry.utctimetuple())) if expiry else float("inf")
        extra = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        return Token(Secret(token), expires, extra)


class _translated:
    """google-auth's exceptions as ours (``raise ... from``), the provider named."""

    def __init__(self, provider: str) -> None:
        self.provider = provider

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None or isinstance(exc, LLMBridgeError) or not isinstance(exc, Exception):
            return
        from google.auth import exceptions

        detail = f"{type(exc).__name__}: {str(exc)[:300]}"
        if isinstance(exc, exceptions.DefaultCredentialsError):
            raise ConfigurationError(
                f"no Google Application Default Credentials ({detail}): set "
                "GOOGLE_APPLICATION_CREDENTIALS, run 'gcloud auth application-default login', "
                "or pass an access token",
                provider=self.provider,
            ) from exc
        if isinstance(exc, exceptions.TransportError):
            raise ConnectionError(
                f"the Google token endpoint could not be reached ({detail})", provider=self.provider
            ) from exc
        raise AuthenticationError(  # google-auth's own, or a credential's odd answer
            f"the Google credentials could not be refreshed ({detail})", provider=self.provider
        ) from exc


def google_auth(
    config: Any,
    *,
    provider: str,
    scopes: Sequence[str] = (CLOUD_PLATFORM,),
    margin: float = REFRESH_MARGIN,
    needs_project: bool = True,
) -> GoogleAuth:
    """The ADC ``httpx.Auth`` and project for a ``ProviderConfig`` (see the module rules).
    ``needs_project=False``: a project the options and environment do not name stays ``None``
    and nothing is loaded until the first request (the URL does not need it)."""
    _require_google(provider)
    options: Mapping[str, Any] = config.options
    env = os.environ if config.env is None else config.env
    source = _AdcSource(provider=provider, scopes=scopes, credentials=options.get("credentials"))
    project = _named_project(options, env, PROJECT_VARS)
    if project is None and needs_project:
        _, project = source.load()

    async def fetch() -> Token:
        return await in_thread(source.fetch)

    tokens = SharedRefresh(
        fetch,
        fresh=lambda token: token.fresh(margin),
        secrets=lambda token: (token.value.reveal(),),
    )
    return GoogleAuth(auth=_GoogleBearer(tokens), project=str(project) if project else None)


@dataclass(frozen=True, slots=True)
class GoogleCredential:
    """What ``google_credential`` resolved: a bearer ``key`` or an ``auth`` (the app's, or ADC),
    and the project (None: none named and none loaded)."""

    key: Secret | None
    auth: httpx.Auth | None
    project: str | None


def _named_project(
    options: Mapping[str, Any], env: Mapping[str, str], project_vars: Sequence[str]
) -> str | None:
    project = options.get("project") or next((env[v] for v in project_vars if env.get(v)), None)
    return str(project) if project else None


def google_credential(
    config: Any,
    *,
    provider: str,
    project_vars: Sequence[str] = PROJECT_VARS,
    needs_project: bool = True,
) -> GoogleCredential:
    """The credential and project of a Google-hosted provider (see the module rules)."""
    options: Mapping[str, Any] = config.options
    env = os.environ if config.env is None else config.env
    project = _named_project(options, env, (*project_vars, *PROJECT_VARS))
    token = options.get("access_token")
    custom = config.auth
    if token or config.api_key is not None:
        if custom is not None:
            raise ConfigurationError(
                f"provider {provider!r}: give either a token or auth/token_provider, not both",
                provider=provider,
            )
        key = Secret(str(token)) if token else config.api_key
        return GoogleCredential(key=key, auth=None, project=project)
    if custom is not None:
        return GoogleCredential(key=None, auth=custom, project=project)
    adc = google_auth(config, provider=provider, needs_project=needs_project and project is None)
    return GoogleCredential(key=None, auth=adc.auth, project=project or adc.project)


class _GoogleBearer(RefreshingBearerAuth):
    def __repr__(self) -> str:
        return f"GoogleAuth(refreshes={self.tokens.fetches})"

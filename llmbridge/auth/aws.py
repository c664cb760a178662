"""AWS credentials and SigV4 signing as an ``httpx.Auth`` (the ``bedrock`` extra: botocore).

Rules:

* A Bedrock API key (the ``api_key`` option, else ``AWS_BEARER_TOKEN_BEDROCK``) is sent as a
  bearer token, unsigned. An ``auth`` / ``token_provider`` in the config wins over everything.
* Otherwise credentials come from botocore's default chain (environment, shared config and
  credentials files with ``profile``, SSO, assume-role, container and instance metadata), or
  from the ``aws_access_key_id`` / ``aws_secret_access_key`` / ``aws_session_token`` options,
  or from a ``botocore_session`` option (a ``botocore.session.Session`` the app set up).
* Resolving and refreshing credentials block (files, STS, IMDS): they run in a worker thread,
  never on the event loop, one at a time for all concurrent requests (``SharedRefresh``).
  Temporary credentials are refreshed from botocore's advisory window on (15 minutes before
  expiry; a failed advisory refresh keeps the old ones, as botocore does, until its mandatory
  window at 10 minutes), inside that worker-thread call.
* Each attempt is signed afresh with botocore's ``SigV4Auth`` over an ``AWSRequest`` built from
  the httpx request: method, URL as sent, the exact body bytes, and the ``host``,
  ``content-type`` and ``x-amz-*`` headers; the signing headers (``authorization``,
  ``x-amz-date``, ``x-amz-security-token``, ``x-amz-content-sha256``) are copied back.
* Region: the ``region`` option, ``AWS_REGION``, ``AWS_DEFAULT_REGION``, the profile's, else a
  ``ConfigurationError``. botocore is imported lazily; without it a ``ConfigurationError``
  names ``llmbridge[bedrock]``. Keys, session tokens and signatures never show in reprs/errors,
  nor in logs: botocore logs the canonical request (session token included) at DEBUG while it
  signs, so its ``botocore.auth`` records are dropped while *we* sign (a context flag; an app's
  own boto3 calls still log as before).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncGenerator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import AuthenticationError, ConfigurationError, ConnectionError, LLMBridgeError
from ..secrets import Secret
from .bearer import AsyncOnlyAuth, BearerAuth
from .refresh import SharedRefresh, in_thread

__all__ = ["AWS_OPTIONS", "AwsAuth", "SigV4Auth", "aws_auth", "require_botocore"]

AWS_OPTIONS = frozenset(
    {"region", "profile", "aws_access_key_id", "aws_secret_access_key", "aws_session_token"}
    | {"botocore_session"}
)
"""The provider options ``aws_auth`` reads (declared by every provider that signs with it)."""

SIGNED_HEADERS = frozenset({"host", "content-type"})
"""Headers signed beside every ``x-amz-*`` one (few, so no proxy or HTTP backend can change a
signed header after signing)."""
SIGNING_HEADERS = ("Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-SHA256")


def require_botocore(provider: str) -> Any:
    """``botocore`` (imported on first use), or a ``ConfigurationError`` naming the extra."""
    try:
        import botocore
        import botocore.auth
        import botocore.awsrequest
        import botocore.credentials
        import botocore.session
    except ImportError as exc:
        raise ConfigurationError(
            f"provider {provider!r} needs botocore for AWS credentials and signing: "
            "pip install 'llmbridge[bedrock]'",
            provider=provider,
        ) from exc
    return botocore


@dataclass(frozen=True, slots=True)
class AwsAuth:
    """What ``aws_auth`` gives a provider: the ``httpx.Auth`` and the region."""

    auth: httpx.Auth
    region: str


class _Credentials:
    """botocore's credential chain, resolved and refreshed in worker threads."""

    def __init__(self, *, provider: str, session: Any, static: Any = None) -> None:
        self.provider = provider
        self._session = session
        self._source: Any = static
        self._lock = threading.Lock()
        self.shared = SharedRefresh(self._fetch, fresh=self._fresh, secrets=_secrets_of)

    def _fresh(self, frozen: Any) -> bool:
        needed = getattr(self._source, "refresh_needed", None)
        return needed is None or not needed()  # botocore's advisory window (15 minutes)

    async def _fetch(self) -> Any:
        return await in_thread(self._resolve)

    def _resolve(self) -> Any:
        """Blocking: find the credentials (first call) and freeze them (refreshing if due)."""
        with self._lock, _translated(self.provider):
            if self._source is None:
                self._source = self._session.get_credentials()
                if self._source is None:
                    raise ConfigurationError(
                        f"provider {self.provider!r}: no AWS credentials found (environment, "
                        "shared config/credentials files, SSO, container or instance metadata); "
                        "set a profile, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or a Bedrock API "
                        "key (AWS_BEARER_TOKEN_BEDROCK)",
                        provider=self.provider,
                    )
            return self._source.get_frozen_credentials()


def _secrets_of(frozen: Any) -> tuple[str, ...]:
    return tuple(s for s in (frozen.access_key, frozen.secret_key, frozen.token) if s)


class _translated:
    """botocore's credential errors as ours (``raise ... from``)."""

    def __init__(self, provider: str) -> None:
        self.provider = provider

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None or isinstance(exc, LLMBridgeError) or not isinstance(exc, Exception):
            return
        from botocore import exceptions

        detail = f"{type(exc).__name__}: {str(exc)[:300]}"
        if isinstance(exc, (exceptions.ProfileNotFound, exceptions.PartialCredentialsError)):
            raise ConfigurationError(
                f"the AWS configuration is incomplete ({detail})", provider=self.provider
            ) from exc
        if isinstance(exc, (exceptions.ConnectionError, exceptions.HTTPClientError)):
            raise ConnectionError(
                f"AWS credentials could not be fetched ({detail})", provider=self.provider
            ) from exc
        raise AuthenticationError(  # botocore's own, or a refresh function's
            f"AWS credentials could not be resolved or refreshed ({detail})",
            provider=self.provider,
        ) from exc


class SigV4Auth(AsyncOnlyAuth):
    """Signs every attempt with AWS Signature Version 4 (botocore's ``SigV4Auth``)."""

    requires_request_body = True

    def __init__(self, credentials: _Credentials, *, service: str, region: str) -> None:
        self._credentials = credentials
        self.service = service
        self.region = region

    def __repr__(self) -> str:
        return f"SigV4Auth(service={self.service!r}, region={self.region!r})"

    @property
    def refreshes(self) -> int:
        """How many times credentials were resolved or refreshed."""
        return self._credentials.shared.fetches

    def secrets(self) -> set[str]:
        return self._credentials.shared.secrets()

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        await request.aread()
        frozen = await self._credentials.shared.get()
        sign(request, frozen, service=self.service, region=self.region)
        yield request


_SIGNING: ContextVar[bool] = ContextVar("llmbridge_sigv4_signing", default=False)


class _QuietWhileSigning(logging.Filter):
    """Drops botocore's signing DEBUG records (canonical request, string to sign, signature)
    emitted while llmbridge signs: they hold the session token and the signature."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _SIGNING.get()


_QUIET = _QuietWhileSigning()


def sign(request: httpx.Request, credentials: Any, *, service: str, region: str) -> None:
    """Add SigV4 headers to ``request`` (its body read) for the frozen ``credentials``."""
    from botocore.auth import SigV4Auth as BotocoreSigV4
    from botocore.awsrequest import AWSRequest

    logger = logging.getLogger("botocore.auth")
    if _QUIET not in logger.filters:
        logger.addFilter(_QUIET)

    headers = {
        name: value
        for name, value in request.headers.items()
        if name in SIGNED_HEADERS or (name.startswith("x-amz-") and name != "x-amz-date")
    }
    for name in SIGNING_HEADERS:
        headers.pop(name.lower(), None)
    aws = AWSRequest(
        method=request.method, url=str(request.url), data=request.content, headers=headers
    )
    signing = _SIGNING.set(True)
    try:
        BotocoreSigV4(credentials, service, region).add_auth(aws)
    finally:
        _SIGNING.reset(signing)
    for name in SIGNING_HEADERS:
        value = aws.headers.get(name)
        if value is not None:
            request.headers[name] = value
        elif name in request.headers:
            del request.headers[name]


def _region(config: Any, env: Mapping[str, str], session: Any, provider: str) -> str:
    region = config.options.get("region") or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if not region and session is not None:
        region = session.get_config_variable("region")
    if not region:
        raise ConfigurationError(
            f"provider {provider!r} needs an AWS region: pass providers={{{provider!r}: "
            "{'region': 'us-east-1'}}, set AWS_REGION, or give the profile a region",
            provider=provider,
        )
    return str(region)


def aws_auth(config: Any, *, service: str, provider: str) -> AwsAuth:
    """The auth and region for an AWS service from a ``ProviderConfig`` (see module rules)."""
    options: Mapping[str, Any] = config.options
    env = os.environ if config.env is None else config.env
    custom = config.auth
    key = config.key("AWS_BEARER_TOKEN_BEDROCK", provider=provider, required=False)
    if custom is not None or key is not None:
        region = options.get("region") or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
        session = options.get("botocore_session")
        if not region and session is None and _has_botocore():  # the profile may name it
            session = require_botocore(provider).session.Session(profile=options.get("profile"))
        auth = custom if custom is not None else BearerAuth(_as_secret(key))
        return AwsAuth(auth=auth, region=_region(config, env, session, provider))
    botocore = require_botocore(provider)
    with _translated(provider):
        session = options.get("botocore_session") or botocore.session.Session(
            profile=options.get("profile")
        )
        region = _region(config, env, session, provider)
    static = None
    access = options.get("aws_access_key_id")
    secret = options.get("aws_secret_access_key")
    if access or secret:
        if not (access and secret):
            raise ConfigurationError(
                f"provider {provider!r}: pass aws_access_key_id and aws_secret_access_key together",
                provider=provider,
            )
        token = options.get("aws_session_token")
        static = botocore.credentials.Credentials(
            _reveal(access), _reveal(secret), _reveal(token) if token else None, method="explicit"
        )
    credentials = _Credentials(provider=provider, session=session, static=static)
    return AwsAuth(auth=SigV4Auth(credentials, service=service, region=region), region=region)


def _has_botocore() -> bool:
    try:
        import botocore.session  # noqa: F401
    except ImportError:
        return False
    return True


def _reveal(value: Any) -> str:
    return value.reveal() if isinstance(value, Secret) else str(value)


def _as_secret(value: Any) -> Secret:
    return value if isinstance(value, Secret) else Secret(str(value))

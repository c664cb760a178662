"""AWS credentials, region and SigV4 signing as an ``httpx.Auth`` (the ``bedrock`` extra: botocore).

The one place every AWS-hosted provider (``bedrock``, ``anthropic-bedrock``,
``anthropic-bedrock-mantle``, ``anthropic-aws``) takes its credential and region from
(``aws_credential``; ``aws_auth`` is the same precedence with the key as a ``BearerAuth``).
Rules:

* Precedence, in the order of the ``anthropic`` SDK's AWS clients: the app's ``auth`` /
  ``token_provider`` wins and is sent as given; else an explicit ``api_key`` is a bearer token
  (with explicit AWS credentials as well, a ``ConfigurationError``: the SDK's clients refuse
  both); else explicit AWS credentials (``EXPLICIT_OPTIONS``: ``aws_access_key_id`` /
  ``aws_secret_access_key`` / ``aws_session_token``, a ``profile``, a ``botocore_session``) sign
  with SigV4 and the key variables are not read; else the host's key variable
  (``AWS_BEARER_TOKEN_BEDROCK`` for Bedrock) is a bearer token, unsigned; else botocore's
  default chain (environment, shared config and credentials files, SSO, assume-role, container
  and instance metadata) and SigV4.
* Region (``REGION_VARS``): the ``region`` option, ``AWS_REGION``, ``AWS_DEFAULT_REGION``, the
  profile's; a signer needs one (``ConfigurationError`` otherwise), a bearer key only where the
  URL does (``aws_credential`` leaves ``region`` None; ``require_region`` says how to set it).
* Resolving and refreshing credentials block (files, STS, IMDS): they run in a worker thread,
  never on the event loop, one at a time for all concurrent requests (``SharedRefresh``).
  Temporary credentials are refreshed from botocore's advisory window on (15 minutes before
  expiry; a failed advisory refresh keeps the old ones, as botocore does, until its mandatory
  window at 10 minutes), inside that worker-thread call.
* Each attempt is signed afresh with botocore's ``SigV4Auth`` over an ``AWSRequest`` built from
  the httpx request: method, URL as sent, the exact body bytes, and the ``host``,
  ``content-type`` and ``x-amz-*`` headers; the signing headers (``authorization``,
  ``x-amz-date``, ``x-amz-security-token``, ``x-amz-content-sha256``) are copied back.
* botocore is imported lazily; without it a ``ConfigurationError`` names ``llmbridge[bedrock]``.
  Keys, session tokens and signatures never show in reprs/errors, nor in logs: botocore logs
  the canonical request (session token included) at DEBUG while it signs, so its
  ``botocore.auth`` records are dropped while *we* sign (a context flag; an app's own boto3
  calls still log as before).
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

__all__ = [
    "AWS_OPTIONS",
    "BEDROCK_KEY_VAR",
    "EXPLICIT_OPTIONS",
    "REGION_VARS",
    "AwsAuth",
    "AwsCredential",
    "SigV4Auth",
    "aws_auth",
    "aws_credential",
    "chain_credentials",
    "require_botocore",
    "require_region",
]

EXPLICIT_OPTIONS = (
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "profile",
    "botocore_session",
)  # fmt: skip
"""Options that ask for SigV4 with given credentials (they win over a key variable)."""
AWS_OPTIONS = frozenset({"region", *EXPLICIT_OPTIONS})
"""The provider options ``aws_credential`` reads (declared by every provider that uses it)."""
REGION_VARS = ("AWS_REGION", "AWS_DEFAULT_REGION")
"""Where a region comes from after the ``region`` option, in order (then the profile's)."""
BEDROCK_KEY_VAR = "AWS_BEARER_TOKEN_BEDROCK"
"""Bedrock's API key variable (a bearer token)."""

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
    def credentials(self) -> Any:
        """The shared, refreshed credentials (another service's signer may sign with them)."""
        return self._credentials

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


def sign(
    request: httpx.Request, credentials: Any, *, service: str, region: str, signer: Any = None
) -> None:
    """Add SigV4 headers to ``request`` (its body read) for the frozen ``credentials``
    (``signer``: a botocore signer class of an unsigned payload, S3's: the body is not read)."""
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
        method=request.method,
        url=str(request.url),
        data=request.content if signer is None else b"",
        headers=headers,
    )
    signing = _SIGNING.set(True)
    try:
        (signer or BotocoreSigV4)(credentials, service, region).add_auth(aws)
    finally:
        _SIGNING.reset(signing)
    for name in SIGNING_HEADERS:
        value = aws.headers.get(name)
        if value is not None:
            request.headers[name] = value
        elif name in request.headers:
            del request.headers[name]


@dataclass(frozen=True, slots=True)
class AwsCredential:
    """What ``aws_credential`` resolved: a bearer ``key`` or an ``auth`` (the app's, or SigV4),
    and the region (None: a key or the app's auth, and no region named anywhere)."""

    key: Secret | None
    auth: httpx.Auth | None
    region: str | None


def _named_region(config: Any, env: Mapping[str, str], session: Any) -> str | None:
    region = config.options.get("region") or next((env[v] for v in REGION_VARS if env.get(v)), None)
    if not region and session is not None:
        region = session.get_config_variable("region")
    return str(region) if region else None


def require_region(region: str | None, *, provider: str) -> str:
    """``region``, or the ``ConfigurationError`` telling how to set one."""
    if not region:
        raise ConfigurationError(
            f"provider {provider!r} needs an AWS region: pass providers={{{provider!r}: "
            "{'region': 'us-east-1'}}, set AWS_REGION, or give the profile a region",
            provider=provider,
        )
    return region


def aws_credential(
    config: Any,
    *,
    service: str,
    provider: str,
    key_vars: tuple[str, ...] = (BEDROCK_KEY_VAR,),
) -> AwsCredential:
    """The credential and region of an AWS host from a ``ProviderConfig`` (the module rules):
    ``key_vars`` are the host's key variables, ``service`` the SigV4 signing name."""
    options: Mapping[str, Any] = config.options
    env: Mapping[str, str] = os.environ if config.env is None else config.env
    explicit = any(options.get(k) for k in EXPLICIT_OPTIONS)
    custom = config.auth
    key = None
    if custom is None:
        if config.api_key is not None and explicit:
            raise ConfigurationError(
                f"provider {provider!r}: give either api_key or AWS credentials, not both",
                provider=provider,
            )
        key = (
            config.api_key if explicit else config.key(*key_vars, provider=provider, required=False)
        )
    if custom is not None or key is not None:
        session = options.get("botocore_session")
        if session is None and not _named_region(config, env, None) and _has_botocore():
            profile = options.get("profile")  # the profile (or the default one) may name it
            session = require_botocore(provider).session.Session(profile=profile)
        region = _named_region(config, env, session)
        return AwsCredential(
            key=None if key is None else _as_secret(key), auth=custom, region=region
        )
    signer = _signer(config, env, service=service, provider=provider)
    return AwsCredential(key=None, auth=signer, region=signer.region)


def _signer(config: Any, env: Mapping[str, str], *, service: str, provider: str) -> SigV4Auth:
    options: Mapping[str, Any] = config.options
    botocore = require_botocore(provider)
    with _translated(provider):
        session = options.get("botocore_session") or botocore.session.Session(
            profile=options.get("profile")
        )
        region = require_region(_named_region(config, env, session), provider=provider)
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
    return SigV4Auth(credentials, service=service, region=region)


def chain_credentials(*, provider: str) -> Any:
    """botocore's default credential chain, resolved on first use (in a worker thread)."""
    session = require_botocore(provider).session.Session()
    return _Credentials(provider=provider, session=session)


def aws_auth(config: Any, *, service: str, provider: str) -> AwsAuth:
    """``aws_credential`` with Bedrock's key variable, the key as a ``BearerAuth`` and the region
    required (for hosts whose URLs and signer always need one)."""
    found = aws_credential(config, service=service, provider=provider)
    auth = found.auth if found.key is None else BearerAuth(found.key)
    assert auth is not None
    return AwsAuth(auth=auth, region=require_region(found.region, provider=provider))


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

"""SigV4 for Amazon S3 with an unsigned payload: an ``httpx.Auth`` that never reads the body.

Rules (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html):

* Every attempt is signed afresh by botocore's ``S3SigV4Auth`` (service ``s3``) with the header
  ``x-amz-content-sha256: UNSIGNED-PAYLOAD``, so a streamed upload (a batch's input file, up to
  gigabytes) is sent as it is read, never held whole to be hashed (``requires_request_body``
  is false; botocore would hash the body of a plain-HTTP request, which the loopback tests use:
  the payload is unsigned there too).
* Credentials: those the provider signs Bedrock with (``aws.SigV4Auth.credentials``: shared,
  refreshed in a worker thread), else botocore's default chain (``s3_auth``: a Bedrock API key
  is no S3 credential). Nothing secret shows in the repr.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import httpx

from .aws import SigV4Auth, chain_credentials, require_botocore, sign
from .bearer import AsyncOnlyAuth

__all__ = ["UNSIGNED_PAYLOAD", "S3Auth", "s3_auth"]

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"


def _signer_class(provider: str) -> Any:
    botocore = require_botocore(provider)

    class _Unsigned(botocore.auth.S3SigV4Auth):  # type: ignore[misc,name-defined]
        def _should_sha256_sign_payload(self, request: Any) -> bool:
            return False

    return _Unsigned


class S3Auth(AsyncOnlyAuth):
    """Signs each attempt for S3 with an unsigned payload (module rules)."""

    requires_request_body = False

    def __init__(self, credentials: Any, *, region: str, provider: str) -> None:
        self._credentials = credentials
        self.region = region
        self._signer = _signer_class(provider)

    def __repr__(self) -> str:
        return f"S3Auth(region={self.region!r})"

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        frozen = await self._credentials.shared.get()
        request.headers["x-amz-content-sha256"] = UNSIGNED_PAYLOAD
        sign(request, frozen, service="s3", region=self.region, signer=self._signer)
        yield request


def s3_auth(auth: Any, *, region: str, provider: str) -> S3Auth:
    """The S3 signer beside a provider's ``auth``: its credentials when it signs with SigV4,
    else botocore's default chain."""
    if isinstance(auth, SigV4Auth):
        return S3Auth(auth.credentials, region=region, provider=provider)
    return S3Auth(chain_credentials(provider=provider), region=region, provider=provider)

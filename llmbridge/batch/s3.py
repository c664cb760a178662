"""Amazon S3 for Bedrock batch inference: ``s3://`` locations, endpoints, a streamed PutObject and
a line-by-line GetObject, through the one attempt loop.

Rules:

* ``S3Location.parse`` reads ``s3://bucket/key`` (anything else: a ``UsageError``).
* Endpoints are botocore's configured ones (``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL_BEDROCK``,
  then ``AWS_ENDPOINT_URL``, then the shared config file's ``services`` section; none when
  ``AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`` is set), read once per
  ``BatchCall`` in a worker thread (the config file is a file); none configured: AWS's own hosts
  in the provider's region. On AWS's host a bucket is addressed virtual-hosted
  (``https://{bucket}.s3.{region}.amazonaws.com/{key}``; a bucket with dots, whose host name the
  certificate does not cover, path-style as botocore does), on a configured endpoint path-style
  (``{endpoint}/{bucket}/{key}``: MinIO, LocalStack, a VPC endpoint).
* Requests are signed for ``s3`` with an unsigned payload (``llmbridge.auth.aws_s3``); a
  PutObject streams the chunk from disk with its known length (a single PUT: Bedrock's input
  files are at most 1 GB, S3's single PUT takes 5 GB); a GetObject's lines come as they arrive
  (``stream.files.download_lines``). Errors are the provider's table (``map_error``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from ..auth.aws import require_botocore
from ..auth.aws_s3 import s3_auth
from ..auth.refresh import in_thread
from ..errors import ConfigurationError, UsageError
from ..providers.base import HttpRequest
from ..stream.fetch import answer_with
from ..stream.file_bodies import UploadRequest
from ..stream.files import download_lines
from .calls import BatchCall

__all__ = ["S3", "S3Location", "configured_endpoint", "s3_of"]


@dataclass(frozen=True, slots=True)
class S3Location:
    """An object (or a prefix) in a bucket."""

    bucket: str
    key: str

    @classmethod
    def parse(cls, uri: str) -> S3Location:
        bucket, _, key = uri.removeprefix("s3://").partition("/")
        if not uri.startswith("s3://") or not bucket:
            raise UsageError(f"not an S3 location: {uri!r} (expected s3://bucket/prefix)")
        return cls(bucket, key)

    def child(self, name: str) -> S3Location:
        prefix = self.key.rstrip("/")
        return S3Location(self.bucket, f"{prefix}/{name}" if prefix else name)

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.key}"


def configured_endpoint(service: str, *, provider: str) -> str | None:
    """botocore's configured endpoint URL of ``service`` (module rules; blocking: a file read)."""
    botocore = require_botocore(provider)
    session = botocore.session.Session()
    if session.get_config_variable("ignore_configured_endpoint_urls"):
        return None
    try:
        from botocore.configprovider import ConfiguredEndpointProvider
    except ImportError:  # pragma: no cover - botocore older than 1.31: the variables alone
        import os

        key = f"AWS_ENDPOINT_URL_{service.upper()}"
        return os.environ.get(key) or os.environ.get("AWS_ENDPOINT_URL")
    found = ConfiguredEndpointProvider(
        full_config=session.full_config,
        scoped_config=session.get_scoped_config(),
        client_name=service,
    ).provide()
    return str(found).rstrip("/") if found else None


@dataclass(frozen=True, slots=True)
class S3:
    """Where and how one job's S3 requests go (module rules)."""

    endpoint: str
    virtual: bool
    """Virtual-hosted addressing (AWS's host) rather than path-style."""
    auth: httpx.Auth
    control: str
    """The Bedrock control plane's URL (``model-invocation-job``)."""

    def url(self, where: S3Location) -> str:
        key = quote(where.key, safe="/-_.~")
        if self.virtual and "." not in where.bucket:  # a dotted bucket fails TLS as a host
            scheme, _, host = self.endpoint.partition("://")
            return f"{scheme}://{where.bucket}.{host}/{key}"
        return f"{self.endpoint}/{where.bucket}/{key}"

    async def put(
        self,
        call: BatchCall,
        where: S3Location,
        content: Callable[[], AsyncIterator[bytes]],
        *,
        length: int,
    ) -> None:
        """PutObject, the body streamed from ``content()`` (afresh on every attempt)."""
        headers = {"content-type": "application/jsonl", "content-length": str(length)}
        request = UploadRequest(
            "PUT", self.url(where), headers, None, self.auth, content=content, length=length
        )
        await self.send(call, request, "uploading")

    def lines(self, call: BatchCall, where: S3Location) -> AsyncIterator[bytes]:
        """GetObject, read line by line."""
        request = HttpRequest("GET", self.url(where), headers={}, json=None, auth=self.auth)
        return download_lines(request, provider=call.provider, config=call.config)

    async def send(self, call: BatchCall, request: HttpRequest, during: str = "sending") -> Any:
        """One request through the attempt loop; its ``Answer`` (the body unparsed)."""
        return await answer_with(call.config, call.provider, request, during)


def _region(call: BatchCall) -> str:
    region = getattr(call.provider, "region", None) or getattr(call.probe.http.auth, "region", None)
    if not region:
        raise ConfigurationError(
            f"provider {call.provider.name!r}: batch inference needs an AWS region (the "
            "'region' option or AWS_REGION)",
            provider=call.provider.name,
        )
    return str(region)


async def s3_of(call: BatchCall, settings: dict[str, str]) -> S3:
    """The job's ``S3`` (made once per ``BatchCall``; ``settings``: the provider's batch ones)."""
    made: S3 | None = call.memo.get("s3")
    if made is not None:
        return made
    name, region = call.provider.name, _region(call)

    def endpoints() -> tuple[str | None, str | None]:
        return configured_endpoint("s3", provider=name), configured_endpoint(
            "bedrock", provider=name
        )

    s3_url, control = await in_thread(endpoints)
    made = call.memo["s3"] = S3(
        endpoint=s3_url or f"https://s3.{region}.amazonaws.com",
        virtual=s3_url is None,
        auth=s3_auth(call.probe.http.auth, region=region, provider=name),
        control=(
            settings.get("control_url") or control or f"https://bedrock.{region}.amazonaws.com"
        ),
    )
    return made

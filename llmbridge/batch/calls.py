"""One batch job's calls: JSON requests, streamed uploads and line-by-line downloads, all through
the one attempt loop, with the provider's own auth.

Rules: the endpoint, headers and auth are read once from a probe: the provider's ``prepare()``
of a one-message request for the job's model (so a batch adapter never reaches into a
provider's private state, and keys stay in the provider's headers and ``httpx.Auth``). Every
request goes through ``llmbridge.stream`` (``fetch_json``, also for a streamed
``file_bodies.UploadRequest``; ``files.download_lines``): retries, ``Retry-After``, deadlines, typed errors and the pool's
clients are the loop's. A result's body is read by the provider's whole decoder
(``decode``: what ``complete(stream=False)`` reads with; a provider without one is refused
before any request). Keys never appear in a ``BatchCall``'s repr.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ..messages import ChatMessage, ChatResponse
from ..providers.adapter import prepared_of
from ..providers.base import HttpRequest, Provider
from ..providers.prepared import Prepared
from ..providers.whole import require_whole
from ..request import ChatRequest
from ..response import Accumulator
from ..stream.call import CallConfig
from ..stream.fetch import json_with
from ..stream.file_bodies import UploadRequest
from ..stream.files import download_lines

__all__ = ["BatchCall", "probe_request"]

_BODY_HEADERS = frozenset({"content-type", "accept", "content-length"})


def probe_request(model: str) -> ChatRequest:
    """The request whose prepared call tells a job's endpoint, headers and auth."""
    return ChatRequest(model=model, messages=[ChatMessage.user(".")])


@dataclass(frozen=True, slots=True)
class BatchCall:
    """What every request of one job is sent with (module rules)."""

    provider: Provider
    model: str
    config: CallConfig
    probe: Prepared = field(repr=False)
    template: ChatRequest = field(repr=False)
    whole: Prepared | None = field(default=None, repr=False)
    """The provider's whole (``stream=False``) call, prepared once for the job: its decoder
    reads each result's body (``providers.whole``), as ``complete(stream=False)`` does."""
    prepare: Callable[[ChatRequest], Prepared] | None = field(default=None, repr=False)
    """The provider's own ``prepare`` (looked up once: no protocol check per request)."""
    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    """What an adapter derives once from the probe (its URLs)."""

    @classmethod
    def of(cls, provider: Provider, model: str, config: CallConfig) -> BatchCall:
        template = probe_request(model)
        probe = prepared_of(provider, template)
        whole = require_whole(
            prepared_of(provider, template.model_copy(update={"stream": False})),
            provider=provider.name,
            model=model,
        )
        prepare = getattr(provider, "prepare", None)
        return cls(provider, model, config, probe, template, whole, prepare)

    def prepared(self, request: ChatRequest) -> Prepared:
        """``request`` prepared by the provider."""
        if self.prepare is not None:
            return self.prepare(request)
        return prepared_of(self.provider, request)

    def decode(self, body: Any) -> ChatResponse:
        """One result's whole ``body`` as the ``ChatResponse`` ``complete()`` gives."""
        assert self.whole is not None  # made by ``of``
        decoder: Any = self.whole.new_decoder()
        acc = Accumulator(provider=self.provider.name)
        for event in [*decoder.feed_frame(body), *decoder.close()]:
            acc.add(event)
        return acc.response()

    @property
    def url(self) -> str:
        """The URL the provider streams this model's chat from."""
        return self.probe.http.url

    def headers(self, **extra: str) -> dict[str, str]:
        kept = {k: v for k, v in self.probe.http.headers.items() if k.lower() not in _BODY_HEADERS}
        kept.update(self.config.headers)
        kept.update(extra)
        return kept

    async def json(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        headers = self.headers(**({} if body is None else {"content-type": "application/json"}))
        request = HttpRequest(method, url, headers=headers, json=body, auth=self.probe.http.auth)
        return await self._fetch(request)

    async def _fetch(self, request: HttpRequest, during: str = "sending") -> Any:
        return await json_with(self.config, self.provider, request, during)

    async def upload(
        self,
        url: str,
        content: Callable[[], AsyncIterator[bytes]],
        *,
        length: int,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> Any:
        sent = self.headers(
            **{"content-type": content_type, "content-length": str(length), **(headers or {})}
        )
        request = UploadRequest(
            "POST", url, sent, None, self.probe.http.auth, content=content, length=length
        )
        return await self._fetch(request, during="uploading")

    def lines(self, url: str) -> AsyncIterator[bytes]:
        request = HttpRequest(
            "GET", url, headers=self.headers(accept="*/*"), json=None, auth=self.probe.http.auth
        )
        return download_lines(request, provider=self.provider, config=self.config)

    def body_of(self, prepared: Prepared) -> dict[str, Any]:
        """A prepared call's body as a whole (non-streamed) request."""
        body = prepared.http.json or {}
        if "stream" in body or "stream_options" in body:
            body = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        return body

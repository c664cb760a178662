"""Record real interactions as fixtures (secrets redacted by default).

``RecordingTransport`` wraps a real transport, passes every request through, tees the response
body as it streams (keeping chunk boundaries) and keeps a ``Recording`` per request.
``record_fixture`` runs one ``Client.stream`` call through it and writes a complete fixture
folder (input, request, response, golden events, and the error if the stream ended in one).
A background stream that was resumed (``llmbridge.stream.resume``) is saved as the one stream
the app read: the request that started it, and each segment's body up to its last whole event
(the cut-off rest of a dropped connection left out) followed by the next segment's, so a
replay yields the recorded events (events a resume sent again are dropped by the decoder, as
when recording).

Rules: what is recorded is what the decoder reads. A compressed body (``content-encoding``:
gzip, deflate, and br / zstd where httpx can decode them) is decoded here, with httpx's own
decoders, and handed on decoded (without ``content-encoding`` / ``content-length``): the
recording holds the plain bytes, so redaction sees every key inside and a replay serves them
as they were read. A ``Recording``'s repr scrubs the secrets its transport saw (its data stays
exact: it is what tests compare). ``record_fixture`` also scrubs what the provider's auth says
it sent (``auth_secrets``: the access key id, secret and session token of SigV4 credentials
from the environment, a token provider's tokens), as the error path does.

A recording uses llmbridge's own timeouts (``recording_http``), never httpx's 5 s default, and an
attempt that failed (a read timeout, a dropped connection, no answer at all) is recorded as the
failure it was: ``Recording.error`` is saved in ``response.json`` and the replay raises it where
it came, so a fallback chain replays by the route it took when it was recorded.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from ..auth.bearer import auth_secrets
from ..errors import LLMBridgeError
from ..events import StreamEvent
from ..messages import ChatMessage
from ..providers.config import ProviderConfig
from ..secrets import is_secret_name, json_strings, named_secrets, scrub_json, secret_scrubber
from ..stream.clients import DEFAULT_TIMEOUT
from ..stream.pieces import Pieces
from .fixtures import Fixture, dump_json
from .redact import (
    Scrub,
    redact_request_headers,
    redact_response_headers,
    redact_url,
    scrub_bytes,
)

__all__ = [
    "Recording",
    "RecordingTransport",
    "known_secrets",
    "record_fixture",
    "recording_http",
    "replayable_config",
]


@dataclass
class Recording:
    request: dict[str, Any]
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    """The body as the decoder read it (decompressed), at the boundaries it arrived in."""
    secrets: set[str] = field(default_factory=set, repr=False, compare=False)
    """The credentials its transport saw: scrubbed from the repr."""
    error: str | None = None
    """The transport error that ended this attempt (its httpx class name, e.g. ``ReadTimeout``;
    ``status`` 0 when it came before the response): the body stopped there, and a replay raises
    the same error at the same place (``llmbridge.testing.replay``)."""

    def __repr__(self) -> str:
        scrub = secret_scrubber(self.secrets)
        body = scrub_bytes(b"".join(self.chunks), scrub)
        error = "" if self.error is None else f", error={self.error!r}"
        return (
            f"Recording(request={scrub_json(self.request, scrub)!r}, status={self.status}, "
            f"headers={scrub_json(self.headers, scrub)!r}, body={body!r}{error})"
        )


class _Tee(httpx.AsyncByteStream):
    """The body of ``response`` as its decoder reads it (content-encoding undone a piece at a
    time by ``stream.pieces``, as the live readers do: a gzip bomb is no worse recorded), each
    piece also kept in the recording; a transport error that cuts it short is noted there too."""

    def __init__(self, response: httpx.Response, into: Recording) -> None:
        self._pieces = Pieces(response)
        self._into = into

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pieces, chunks = self._pieces, self._into.chunks
        pieces.open()
        try:
            while piece := await pieces.next():
                chunks.append(piece)
                yield piece
        except httpx.TransportError as exc:  # a read timeout, a dropped connection
            self._into.error = type(exc).__name__
            raise

    async def aclose(self) -> None:
        await self._pieces.aclose()


_ENCODING_HEADERS = frozenset({"content-encoding", "content-length"})
"""Headers that describe the encoded body, which is not what the recorder hands on."""


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(
        self, inner: httpx.AsyncBaseTransport | None = None, *, redact: bool = True
    ) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.redact = redact
        self.recordings: list[Recording] = []
        self.secrets: set[str] = set()
        """Credential values seen in requests (headers, query parameters): scrubbed on save."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        content = await request.aread()
        self.secrets |= named_secrets(request.headers.multi_items())
        self.secrets |= named_secrets(request.url.params.multi_items())
        try:
            body: Any = orjson.loads(content) if content else None
        except orjson.JSONDecodeError:
            body = content.decode("utf-8", "replace")
        self.secrets |= named_secrets(json_strings(body))  # e.g. a remote MCP server's token
        recording = Recording(
            secrets=self.secrets,
            request={
                "method": request.method,
                "url": redact_url(str(request.url)) if self.redact else str(request.url),
                "headers": redact_request_headers(
                    request.headers.multi_items(), redact=self.redact
                ),
                "body": body,
            },
        )
        self.recordings.append(recording)
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as exc:  # no answer at all: recorded as the failure it was
            recording.error = type(exc).__name__
            raise
        recording.status = response.status_code
        recording.headers = redact_response_headers(
            response.headers.multi_items(), redact=self.redact
        )
        assert isinstance(response.stream, httpx.AsyncByteStream)
        encoded = httpx.Response(  # httpx's decoders undo any encoding, as the client's would
            response.status_code, headers=response.headers, stream=response.stream, request=request
        )
        headers = response.headers.multi_items()
        if "content-encoding" in response.headers:  # handed on decoded: not what they describe
            headers = [(k, v) for k, v in headers if k.lower() not in _ENCODING_HEADERS]
        return httpx.Response(
            response.status_code,
            headers=headers,
            stream=_Tee(encoded, recording),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def recording_http(recorder: RecordingTransport) -> httpx.AsyncClient:
    """The HTTP client a recording goes through: the recorder, with llmbridge's own timeouts
    (``stream.clients.DEFAULT_TIMEOUT``: a slow local model's first byte may take more than
    httpx's 5 s default)."""
    return httpx.AsyncClient(transport=recorder, timeout=DEFAULT_TIMEOUT)


def replayable_config(options: Any) -> dict[str, Any]:
    """The provider options a replay needs (``base_url``, flags): never a credential (any
    option or header named like one), never ``env``."""
    if isinstance(options, ProviderConfig):
        options = {"base_url": options.base_url, "headers": options.headers, **options.options}
    if not isinstance(options, dict):
        return {}
    out = {k: v for k, v in options.items() if k != "env" and not is_secret_name(k)}
    headers = {k: v for k, v in (out.pop("headers", None) or {}).items() if not is_secret_name(k)}
    if headers:
        out["headers"] = headers
    return {k: v for k, v in out.items() if v is not None}


def _stream_segments(recordings: Sequence[Recording]) -> list[Recording]:
    """The recordings of the stream a call read: its last request (earlier ones were retried),
    then each resume answered 200 (``GET``), in order; a cancel (``POST``) is not part of it."""
    first = recordings[0].request
    start = max(
        i
        for i, r in enumerate(recordings)
        if (r.request["method"], r.request["url"]) == (first["method"], first["url"])
    )
    resumes = [
        r for r in recordings[start + 1 :] if r.request["method"] == "GET" and r.status == 200
    ]
    return [recordings[start], *resumes]


_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def _joined_body(segments: Sequence[Recording]) -> tuple[bytes, list[int]]:
    """The segments' bodies as one (each but the last up to its last whole event) and the
    chunk sizes it arrived in."""
    body, sizes = bytearray(), []
    for n, segment in enumerate(segments):
        data = b"".join(segment.chunks)
        if n < len(segments) - 1:
            ends = [m.end() for m in _EVENT_END.finditer(data)]
            data = data[: ends[-1]] if ends else b""
        taken = 0
        for piece in segment.chunks:
            size = min(len(piece), len(data) - taken)
            if size <= 0:
                break
            sizes.append(size)
            taken += size
        body += data
    return bytes(body), sizes


def known_secrets(client_options: Mapping[str, Any] | None) -> set[str]:
    """Every credential value in ``Client(**client_options)``'s provider options."""
    found: set[str] = set()
    for options in ((client_options or {}).get("providers") or {}).values():
        found |= ProviderConfig.from_mapping(options).secrets()
    return found


async def record_fixture(
    path: str | Path,
    model: str,
    messages: Sequence[ChatMessage],
    *,
    client_options: dict[str, Any] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    scrub: Scrub | None = None,
    **options: Any,
) -> Fixture:
    """Run ``Client.stream(model, messages, **options)`` for real and save it as a fixture.

    Every credential (keys, tokens, credential headers and options, ``env`` values) is removed
    from everything written, request and response alike; ``scrub`` is the app's own hook,
    applied to every string written too (e.g. to mask e-mail addresses in prompts)."""
    from ..client import Client

    recorder = RecordingTransport(transport)
    events: list[StreamEvent] = []
    error: LLMBridgeError | None = None
    async with recording_http(recorder) as http:
        client = Client(http_client=http, **(client_options or {}))
        provider, model_name = client.resolve(model)
        request = client.build_request(model_name, messages, **options)
        try:
            async for event in client.stream_request(provider, request):
                events.append(event)
        except LLMBridgeError as exc:
            error = exc
    segments = _stream_segments(recorder.recordings)
    body, chunks = _joined_body(segments)
    last = segments[0]
    providers = (client_options or {}).get("providers") or {}
    # the provider's own auth (SigV4 from the environment, ADC, a token provider) knows what
    # it sent, as the error path asks it (``stream.sending.sent_scrubber``)
    sent = auth_secrets(getattr(provider, "auth", None))
    clean = secret_scrubber(recorder.secrets | known_secrets(client_options) | sent, scrub)
    fixture = Fixture(
        path=Path(path),
        model=model,
        request=request,
        provider_config=replayable_config(providers.get(model.partition(":")[0])),
        http_request=last.request,
        status=last.status,
        headers=last.headers,
        body=body,
        chunks=chunks,
        events=events,
        error=segments[-1].error,
    )
    fixture.save(scrub=clean)
    if error is not None:
        dump_json(
            Path(path) / "error.json",
            {"class": type(error).__name__, "message": clean(error.message)},
        )
    return fixture

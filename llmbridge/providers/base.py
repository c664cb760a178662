"""The provider plug-in API: what a provider is, what it builds, what it decodes.

Rules:

* ``Prepares.prepare`` (``providers.adapter``, beside the adapter: ``prepared`` reads this
  module's types, so this module does not import it) is pure: ``ChatRequest -> Prepared`` (``providers.prepared``), no IO,
  no clock, no env. It encodes the request once: the ``HttpRequest`` (its ``auth`` set when the
  provider has one), the encoder's own warnings, a decoder factory, the framing and the
  rate-limit reader. The client calls it once per request; the attempt loop resends the
  prepared request as it is.
* Providers written before ``prepare`` (``build_request`` + ``new_decoder``, optional
  ``framing`` / ``read_rate_limit`` / ``auth`` attributes: ``BuildsRequests``) keep working:
  ``providers.adapter.prepared_of`` prepares them, the one place that looks for those
  attributes.
* A ``Decoder`` is sans-IO: ``feed(event, data)`` takes one SSE event (its ``event:`` name,
  ``""`` when absent, and its ``data:`` text) and returns the normalized events it completes;
  ``close()`` is called once at end of body and returns the rest, raising
  ``StreamTruncatedError`` if the provider's terminal event never came. ``held()`` and
  ``resume_point()`` are declared with defaults (``BaseDecoder``; ``WrappingDecoder`` forwards
  them to the decoder it wraps). Decoders raise only ``LLMBridgeError`` subclasses.
* Keys and base URLs are resolved once, when the provider is built from a ``ProviderConfig``.
* Auth beyond a key header is an ``httpx.Auth`` (``llmbridge.auth``), run by the transport on
  every attempt: ``HttpRequest.auth`` when the request carries one (a prepared request does),
  else the provider's optional ``auth`` attribute (``HasAuth``; built providers set it from
  ``llmbridge.auth.config_auth(config)``). A config with ``auth`` (an ``httpx.Auth``) or
  ``token_provider`` needs no API key.
* Core code never branches on a provider's name: it asks the provider object.
* Resumable streams (optional, ``Resumable``): a provider whose server keeps a streamed
  response (OpenAI Responses background mode) builds the request that streams it again after a
  given event (``resume_request``) and the one that stops it (``cancel_request``); its decoder
  for such a request tells where it stands (``ResumableDecoder.resume_point``): the response id,
  the last event's number, whether the terminal event came. A ``WrappingDecoder`` forwards
  ``resume_point`` by itself (``resume_point_of`` asks it). The transport resumes only when a
  point is known (``llmbridge.stream.resume``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol, TypeAlias, runtime_checkable

import httpx
import orjson

from ..errors import APIError, MalformedStreamError, UsageError
from ..events import RateLimit, StreamEvent
from ..frames import FrameDecoder
from ..model_info import ModelInfo
from ..request import ChatRequest
from ..secrets import REDACTED
from ..secrets import SECRET_QUERY_PARAMS as SECRET_QUERY_PARAMS
from ..secrets import SENSITIVE_HEADERS as SENSITIVE_HEADERS
from ..secrets import Secret as Secret
from ..secrets import is_secret_name as is_secret_name
from ..secrets import secret_values as secret_values
from .config import ProviderConfig as ProviderConfig

__all__ = [
    "AnyDecoder",
    "BaseDecoder",
    "BuildsRequests",
    "Capabilities",
    "CountsTokens",
    "Decoder",
    "Encoded",
    "HasAuth",
    "HttpRequest",
    "JsonMode",
    "ListsModels",
    "Provider",
    "ProviderFactory",
    "ReadsRateLimits",
    "Resumable",
    "ResumableDecoder",
    "ResumePoint",
    "WrappingDecoder",
    "held_of",
    "read_token_count",
    "resume_point_of",
]


def _holds_big_int(value: Any) -> bool:
    """Whether ``value`` holds an integer orjson cannot encode (beyond 64 bits)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, int) and not -(2**63) <= item < 2**64:
            return True
    return False


@dataclass(slots=True)
class HttpRequest:
    """The request a provider wants sent. ``json`` is the body; headers include auth."""

    method: str
    url: str
    headers: dict[str, str]
    json: dict[str, Any] | None
    """The JSON body; ``None`` for a request without one (a ``GET``)."""
    auth: httpx.Auth | None = None
    """Run by the transport on every attempt (signing, tokens); never shown in the repr."""

    def body_bytes(self) -> bytes:
        if self.json is None:
            return b""
        try:
            return orjson.dumps(self.json)
        except orjson.JSONEncodeError as exc:
            if _holds_big_int(self.json):  # tool arguments kept exact: the standard library
                try:
                    return json.dumps(self.json, ensure_ascii=False, allow_nan=False).encode()
                except (TypeError, ValueError):  # UnicodeEncodeError too
                    pass
            raise UsageError(
                f"the request body cannot be sent as JSON ({exc}): text must be valid Unicode "
                "(a lone surrogate such as '\\ud83d' is not; decode bytes with "
                "errors='replace'), and values must be JSON types"
            ) from exc

    def redacted_headers(self) -> dict[str, str]:
        return {k: (REDACTED if is_secret_name(k) else v) for k, v in self.headers.items()}

    def __repr__(self) -> str:
        return f"HttpRequest(method={self.method!r}, url={self.url!r}, headers={self.redacted_headers()!r})"


JsonMode: TypeAlias = Literal["schema", "object", "none"]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a provider's model can do; the client asks this instead of checking names."""

    native_tools: bool = True
    reasoning: bool = False
    images: bool = True
    json_mode: JsonMode = "schema"
    """How a ``response_format`` can be sent: ``schema`` (the API enforces a JSON schema),
    ``object`` (it guarantees JSON but not the schema) or ``none`` (the prompt must ask)."""
    hosted_tools: frozenset[str] = frozenset()
    """The provider-run tool specs this model can run, by their ``type`` (``web_search``,
    ``code_execution``...: ``llmbridge.hosted``); others are refused before sending."""
    compaction: bool = False
    """Server-side compaction (``compaction=``, ``llmbridge.compaction``); refused before
    sending where this is false."""
    rescue_tool_calls: bool = False
    """Whether tool markup leaked as text is rescued when the app did not say (``rescue=None``):
    servers known to leak it (an OpenAI-compatible preset's ``rescue_tool_calls``)."""


@runtime_checkable
class Decoder(Protocol):
    """Sans-IO: ``feed(event, data)`` per SSE event (``event == ""`` when unnamed; ``data``
    may be empty, see docs/httpx-sse-empty-events.md), ``close()`` at the end of the body;
    ``held()`` and ``resume_point()`` as ``BaseDecoder`` gives them by default."""

    def feed(self, event: str, data: str) -> list[StreamEvent]: ...

    def close(self) -> list[StreamEvent]: ...

    def held(self) -> list[StreamEvent]:
        """Events decoded but kept back until a later event (released into a broken
        stream's partial response so nothing decoded is lost)."""
        ...

    def resume_point(self) -> ResumePoint | None:
        """Where a resumable stream stands (``None``: not resumable, or not known yet)."""
        ...


class BaseDecoder:
    """The defaults of a ``Decoder``'s optional parts: nothing held, no resume point."""

    __slots__ = ()

    def held(self) -> list[StreamEvent]:
        return []

    def resume_point(self) -> ResumePoint | None:
        return None


class WrappingDecoder(BaseDecoder):
    """A decoder around another (``inner``): ``held`` and ``resume_point`` are the inner
    decoder's unless a subclass adds its own."""

    __slots__ = ("inner",)

    def __init__(self, inner: AnyDecoder) -> None:
        self.inner = inner

    def held(self) -> list[StreamEvent]:
        return self.inner.held()

    def resume_point(self) -> ResumePoint | None:
        return self.inner.resume_point()


class Encoded(NamedTuple):
    """What an encoder makes of a request: the body and the settings it could not honour."""

    body: dict[str, Any]
    warnings: list[str]


AnyDecoder: TypeAlias = "Decoder | FrameDecoder[Any]"
"""What ``new_decoder`` returns: a ``Decoder`` for SSE; for a typed framing a
``frames.FrameDecoder`` of its frames (``framing = "aws-eventstream"``: ``EventMessage``,
``"ndjson"``: ``Line``)."""


@runtime_checkable
class Provider(Protocol):
    """A provider adapter. Built by a ``ProviderFactory`` from a ``ProviderConfig``; it
    also ``Prepares`` its calls (or, written before that, ``BuildsRequests``)."""

    name: str

    def capabilities(self, model: str) -> Capabilities: ...

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError: ...


@runtime_checkable
class BuildsRequests(Protocol):
    """The protocol before ``prepare`` (third-party providers; ``adapter.prepared_of``)."""

    def build_request(self, request: ChatRequest) -> HttpRequest: ...

    def new_decoder(self, request: ChatRequest) -> AnyDecoder: ...


@runtime_checkable
class HasAuth(Protocol):
    """A provider with an ``httpx.Auth`` of its own, run on every attempt of a request that
    carries none (a prepared request carries it; ``models_request`` and the like do not)."""

    auth: httpx.Auth | None


@runtime_checkable
class ListsModels(Protocol):
    """A provider that can list its models (optional: ``Client.list_models`` asks for it)."""

    def models_request(self, cursor: str | None) -> HttpRequest:
        """The request for one page of the list (``cursor``: from the previous page)."""
        ...

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        """One page's models and the cursor of the next page (``None``: the last)."""
        ...


@runtime_checkable
class CountsTokens(Protocol):
    """A provider with a token-counting endpoint (optional: ``Client.count_tokens``)."""

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        """The request that counts ``request``'s input, built by the same encoder."""
        ...

    def parse_token_count(self, data: Any) -> int:
        """The input-token count in the endpoint's answer."""
        ...


@runtime_checkable
class ReadsRateLimits(Protocol):
    """A provider whose responses carry rate-limit headers (optional)."""

    def read_rate_limit(self, headers: Mapping[str, str]) -> RateLimit | None: ...


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where a resumable stream stands: enough to ask the server for the rest."""

    response_id: str
    """The server's id of the response (``StreamStart.response_id``)."""
    after: int | str | None
    """The number of the last event decoded, or its id where the provider names events by id
    (the Interactions API's ``event_id``) (``None``: none yet; a resume starts at the
    beginning)."""
    complete: bool = False
    """Whether the provider's terminal event came (nothing is left to resume)."""


@runtime_checkable
class ResumableDecoder(Protocol):
    """A decoder of a resumable stream (optional). It drops an event it already decoded (a
    number at or below the last one's) when a resumed stream sends it again."""

    def resume_point(self) -> ResumePoint | None:
        """Where the stream stands, or ``None`` while the response id is unknown."""
        ...


def held_of(decoder: AnyDecoder | None) -> list[StreamEvent]:
    """``decoder.held()`` (none without a decoder)."""
    return decoder.held() if decoder is not None else []


def resume_point_of(decoder: AnyDecoder | None) -> ResumePoint | None:
    """``decoder.resume_point()`` (``None`` without a decoder)."""
    point = decoder.resume_point() if decoder is not None else None
    return point if isinstance(point, ResumePoint) else None


@runtime_checkable
class Resumable(Protocol):
    """A provider whose server keeps streamed responses and streams them again (optional).

    ``ChatRequest.background`` asks for it; ``Client.resume`` and the transport's resumption
    use it (``llmbridge.stream.resume``). Providers without it refuse ``background=True``."""

    def resume_request(self, response_id: str, *, after: int | str | None) -> HttpRequest:
        """The request that streams the events of ``response_id`` after event ``after``
        (``None``: from its first event)."""
        ...

    def cancel_request(self, response_id: str) -> HttpRequest:
        """The request that stops ``response_id`` on the server."""
        ...

    def resume_decoder(self, *, response_id: str, after: int | str | None) -> Decoder:
        """A decoder for a stream ``resume_request`` opens, from no event of its own before
        (``Client.resume`` from another process); a ``ResumableDecoder``."""
        ...


def read_token_count(data: Any, key: str, *, provider: str) -> int:
    """The count under ``key`` of a token-counting answer, or a ``MalformedStreamError``."""
    value = data.get(key) if isinstance(data, dict) else None
    if type(value) is not int or value < 0:
        raise MalformedStreamError(
            f"the token count answer has no {key!r}: {str(data)[:200]}", provider=provider
        )
    return value


ProviderFactory = Callable[[ProviderConfig], Provider]

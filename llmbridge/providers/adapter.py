"""The one bridge from a provider to its ``Prepared`` call, old protocol included.

Rules:

* ``prepared_of(provider, request)``: a provider that ``Prepares`` (every built-in one) is
  asked once; a provider written before ``prepare`` (``build_request`` + ``new_decoder``,
  with the optional ``framing`` / ``read_rate_limit`` / ``auth`` attributes: ``BuildsRequests``,
  e.g. ``examples/llmbridge-echo``) is prepared here from those: one ``build_request``, its
  ``auth`` on the request, its decoders given ``held`` / ``resume_point`` when they lack them.
* This module is the only place that looks for the old protocol's optional attributes
  (``legacy_prepared`` for a request built elsewhere, ``auth_of`` for the requests a provider
  builds beside its calls, such as ``models_request``); core code reads ``Prepared`` fields and
  declared methods only.
* A decoder of the old protocol is given the missing parts by ``adapt_decoder``: its own
  bound ``feed`` and ``close`` are kept (nothing added per event), ``held`` and
  ``resume_point`` are its own where it has them, else none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast, runtime_checkable

import httpx

from ..errors import ConfigurationError
from ..events import RateLimit, StreamEvent
from ..request import ChatRequest
from .base import Decoder, HttpRequest, Provider, ResumePoint
from .prepared import Framing, Prepared

__all__ = ["Prepares", "adapt_decoder", "auth_of", "legacy_prepared", "prepared_of"]

FRAMINGS: frozenset[str] = frozenset(
    {"sse", "aws-eventstream", "ndjson", "whole", "json", "json-answer", "jsonl"}
)


@runtime_checkable
class Prepares(Protocol):
    """A provider that prepares a call once (every built-in provider; ``providers.base``)."""

    def prepare(self, request: ChatRequest) -> Prepared:
        """The call for ``request``, encoded once (``providers.prepared``)."""
        ...


def prepared_of(provider: Provider, request: ChatRequest) -> Prepared:
    """``request`` prepared once by ``provider`` (see the module rules)."""
    if isinstance(provider, Prepares):
        return provider.prepare(request)
    build: Callable[[ChatRequest], HttpRequest] | None = getattr(provider, "build_request", None)
    decode: Callable[[ChatRequest], Any] | None = getattr(provider, "new_decoder", None)
    if build is None or decode is None:
        raise ConfigurationError(
            f"provider {provider.name!r} has neither prepare() nor build_request() and "
            "new_decoder()",
            provider=provider.name,
        )
    http = build(request)
    return legacy_prepared(provider, http, lambda: decode(request))


def legacy_prepared(provider: Any, http: HttpRequest, new_decoder: Callable[[], Any]) -> Prepared:
    """A ``Prepared`` of a request built outside ``prepare``, read with ``provider``'s old
    attributes (``framing``, ``read_rate_limit``, ``auth``)."""
    framing = getattr(provider, "framing", "sse")
    if framing not in FRAMINGS:
        raise ConfigurationError(
            f"unknown framing {framing!r} (known: {', '.join(sorted(FRAMINGS))})",
            provider=getattr(provider, "name", None),
        )
    if http.auth is None:
        http.auth = auth_of(provider)
    read: Callable[[Mapping[str, str]], RateLimit | None] | None
    read = getattr(provider, "read_rate_limit", None)
    framed = cast(Framing, framing)
    return Prepared(
        http=http,
        new_decoder=lambda: adapt_decoder(new_decoder()),
        framing=framed,
        read_rate_limit=read,
    )


def auth_of(provider: Any) -> httpx.Auth | None:
    """The provider's own ``httpx.Auth`` (``HasAuth``), or ``None`` when it has none."""
    auth = getattr(provider, "auth", None)
    return auth if isinstance(auth, httpx.Auth) else None


class _Adapted:
    """An old-protocol decoder with ``held`` / ``resume_point`` (its own, or none)."""

    __slots__ = ("_held", "_point", "close", "feed", "inner")

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.feed: Callable[[str, str], list[StreamEvent]] = getattr(inner, "feed", _no_feed)
        self.close: Callable[[], list[StreamEvent]] = inner.close
        self._held: Callable[[], list[StreamEvent]] | None = getattr(inner, "held", None)
        self._point: Callable[[], ResumePoint | None] | None = getattr(inner, "resume_point", None)

    def held(self) -> list[StreamEvent]:
        return self._held() if self._held is not None else []

    def resume_point(self) -> ResumePoint | None:
        return self._point() if self._point is not None else None


class _AdaptedFrames(_Adapted):
    """The same for an old decoder of a typed framing (it has ``feed_frame``)."""

    __slots__ = ()

    def feed_frame(self, frame: Any) -> list[StreamEvent]:
        out: list[StreamEvent] = self.inner.feed_frame(frame)
        return out


def _no_feed(event: str, data: str) -> list[StreamEvent]:
    raise ConfigurationError("this decoder reads typed frames (feed_frame), not SSE events")


def adapt_decoder(decoder: Any) -> Decoder:
    """``decoder`` itself when it has every ``Decoder`` method, else adapted (module rules)."""
    if hasattr(decoder, "held") and hasattr(decoder, "resume_point"):
        return decoder  # type: ignore[no-any-return]
    adapted: Decoder = (
        _AdaptedFrames(decoder) if hasattr(decoder, "feed_frame") else _Adapted(decoder)
    )
    return adapted

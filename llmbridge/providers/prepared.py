"""A provider call prepared once: what the one attempt loop sends, and how it reads the answer.

Rules:

* A provider prepares a call once (``Prepares.prepare``): all per-request work (planning,
  encoding, warnings, headers) happens there, and the result is immutable. The attempt loop
  resends ``http`` as it is on every attempt (auth runs per attempt, the body is never encoded
  again) and makes a fresh decoder per attempt with ``new_decoder``.
* ``warnings``: the settings the encoder could not honour, reported by the encoder itself; the
  loop stamps them on the stream's ``StreamStart`` (with the request id and rate limit read from
  the response head by ``read_rate_limit``), the one place a ``StreamStart`` is stamped.
* ``framing``: how the body is framed: ``sse`` (httpx-sse), ``aws-eventstream`` (AWS event-stream
  messages), ``ndjson`` (one JSON value per line), ``whole`` (a whole chat answer,
  ``ChatRequest.stream=False``: its decoder's ``feed_frame`` is given the parsed body once),
  ``json`` (one whole JSON answer, the item itself: a model list) or ``jsonl`` (a file's
  lines, read one by one: ``stream.files``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from ..events import RateLimit
    from .base import AnyDecoder, HttpRequest

__all__ = ["Framing", "Prepared"]

Framing: TypeAlias = Literal[
    "sse", "aws-eventstream", "ndjson", "whole", "json", "json-answer", "jsonl"
]


@dataclass(frozen=True, slots=True)
class Prepared:
    """One provider call, prepared once (see the module rules)."""

    http: HttpRequest
    """The request as it is sent on every attempt (headers include the call's own)."""
    new_decoder: Callable[[], AnyDecoder]
    """A fresh decoder for one attempt's body."""
    warnings: tuple[str, ...] = ()
    """What the encoder (and the planning before it) could not honour, for ``StreamStart``."""
    framing: Framing = "sse"
    """How the answer's body is framed."""
    read_rate_limit: Callable[[Mapping[str, str]], RateLimit | None] | None = None
    """Reads the response head's rate-limit headers (``None``: the provider sends none)."""

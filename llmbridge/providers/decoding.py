"""The failure discipline the sans-IO decoders share (``<provider>/decode.py``).

A decoder that hit an error refuses every later input: the stream it was reading is broken.
Rules:

* Every ``feed`` opens with ``if self._failed: raise self._refused()`` (inline, not a call:
  it runs once per event): ``MalformedStreamError("the decoder already failed on this
  stream")``.
* ``_malformed(message)`` marks the decoder failed and returns the error to raise
  (``raise self._malformed(...) from None``).
* ``_guarded(handler, obj, noun, kind)`` runs one handler of a decoder's dispatch table: an
  ``LLMBridgeError`` it raises (a typed stream error) marks the decoder failed and goes on up;
  a ``KeyError``, ``TypeError``, ``IndexError``, ``AttributeError`` or ``ValueError`` (a
  payload of an unexpected shape) becomes ``MalformedStreamError("unreadable <kind> <noun>:
  …")`` (without ``kind``: ``"unreadable <noun>: …"``). The message is built only on failure,
  so the hot path pays for a call and a ``try`` alone.

``finish_reason_mapper(table)`` makes a provider's ``map_finish_reason`` from its table of raw
reasons (kept in its own ``finish_reasons.py``): no reason or one not in the table is
``"other"``; ``tool_aware_mapper(table)`` the same with ``had_tool_calls``: a ``stop`` after the
model called tools is ``tool_calls`` (Gemini, Gemini Interactions).

Used by the anthropic, bedrock, cohere and ollama-native decoders. Each keeps its own state
machine, tables and messages; this holds no state but ``_provider`` and ``_failed``, which the
decoder sets in its ``__init__``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import LLMBridgeError, MalformedStreamError
from ..events import FinishReason, StreamEvent
from .base import BaseDecoder

__all__ = ["UNREADABLE", "GuardedDecoder", "finish_reason_mapper", "tool_aware_mapper"]

UNREADABLE = (KeyError, TypeError, IndexError, AttributeError, ValueError)
"""What a handler raises on a payload of an unexpected shape."""

_D = TypeVar("_D", bound="GuardedDecoder")
_NO_KIND = object()


class GuardedDecoder(BaseDecoder):
    """A decoder's failure flag and the three steps that set or read it."""

    _provider: str
    _failed: bool

    def _refused(self) -> MalformedStreamError:
        return MalformedStreamError(
            "the decoder already failed on this stream", provider=self._provider
        )

    def _malformed(self, message: str) -> MalformedStreamError:
        self._failed = True
        return MalformedStreamError(message, provider=self._provider)

    def _guarded(
        self: _D,
        handler: Callable[[_D, dict[str, Any]], list[StreamEvent]],
        obj: dict[str, Any],
        noun: str,
        kind: object = _NO_KIND,
    ) -> list[StreamEvent]:
        try:
            return handler(self, obj)
        except LLMBridgeError:
            self._failed = True
            raise
        except UNREADABLE as exc:
            what = noun if kind is _NO_KIND else f"{kind!r} {noun}"
            raise self._malformed(f"unreadable {what}: {type(exc).__name__}: {exc}") from exc


def finish_reason_mapper(table: Mapping[str, FinishReason]) -> Callable[[str | None], FinishReason]:
    """``map_finish_reason(raw)`` for ``table``: ``"other"`` for ``None`` or an unknown reason."""

    def map_finish_reason(raw: str | None) -> FinishReason:
        if raw is None:
            return "other"
        return table.get(raw, "other")

    return map_finish_reason


def tool_aware_mapper(table: Mapping[str, FinishReason]) -> Callable[..., FinishReason]:
    """``map_finish_reason(raw, *, had_tool_calls)`` for ``table`` (module rules)."""

    def map_finish_reason(raw: str, *, had_tool_calls: bool) -> FinishReason:
        reason = table.get(raw, "other")
        return "tool_calls" if reason == "stop" and had_tool_calls else reason

    return map_finish_reason

"""``PromptToolDecoder``: a provider decoder wrapped so tagged calls in its text become calls.

Rules:

* It implements the ``Decoder`` protocol (``feed(event, data)``, ``close()``) around the
  provider's own decoder, and ``frames.FrameDecoder`` (``feed_frame(frame)``) around one of a
  typed framing (the framing picks which the loop calls): every ``TextDelta`` goes through a ``ToolCallParser``; every other
  event passes through untouched and in order (reasoning, usage, native tool calls).
* Before the ``Finish`` event the parser is closed, so held text and open calls come out first
  and ``Finish`` stays last. When calls were extracted, a ``stop`` finish becomes
  ``tool_calls`` (``raw_reason`` keeps the provider's value); ``length``, ``content_filter`` and
  ``error`` keep their meaning (a call cut by ``length`` is flagged on its ``ToolCallEnd``).
* Prompt mode (default): calls of any name are extracted; names not among ``tools`` are flagged
  (``ToolCallEnd.error``). Rescue mode (``rescue=True``, for servers with native tools that
  leak calls as text): all known dialects are looked for, only calls to declared tools are
  extracted, anything else stays text; native tool-call events pass through and extracted
  calls are indexed after them. When calls were rescued, the ``Finish`` carries a warning in
  ``provider_data["warnings"]`` naming how many and in which dialects (``StreamStart`` went out
  before any text was read, so the warning rides on the one event that comes after it all).
* Ids are generated: ``f"{id_prefix}{n}"``, unique per response and the same for the same
  input however it was chunked (pass ``call_id_prefix(request)`` for conversation-wide
  uniqueness).
* Text the parser holds (a possible tag prefix, an open call) stays held while other events
  pass, so a reasoning delta may overtake up to one tag's worth of text; text itself is exact.
* Errors raised by the wrapped decoder propagate unchanged (text the parser still held at that
  moment is not in the partial response: at most one tag's worth).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..events import Finish, StreamEvent, TextDelta, ToolCallStart
from ..providers.base import AnyDecoder, ResumePoint, held_of, resume_point_of
from ..tool_spec import ToolSpec
from .dialects import FUNCTION_CALL, KNOWN_DIALECTS, Dialect
from .parser import ToolCallParser

__all__ = ["PromptToolDecoder"]


class PromptToolDecoder:
    """Wrap ``inner`` so tool calls written as tagged text become tool-call events."""

    def __init__(
        self,
        inner: AnyDecoder,
        *,
        tools: Sequence[ToolSpec],
        dialect: Dialect = FUNCTION_CALL,
        rescue: bool = False,
        id_prefix: str | None = None,
    ) -> None:
        dialects = (dialect, *(d for d in KNOWN_DIALECTS if d != dialect)) if rescue else (dialect,)
        self._inner: Any = inner  # feed or feed_frame: the loop calls what the framing makes
        self._parser = ToolCallParser(
            dialects=dialects,
            tool_names=[t.name for t in tools],
            rescue=rescue,
            id_prefix=id_prefix if id_prefix is not None else ("call_text_" if rescue else "call_"),
        )
        self._rescue = rescue
        self._finished = False

    @property
    def extracted_calls(self) -> int:
        """How many calls were taken out of the text so far."""
        return self._parser.calls

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        events: list[StreamEvent] = self._inner.feed(event, data)
        return self._route(events) if events else events

    def feed_frame(self, frame: Any) -> list[StreamEvent]:
        """One typed frame (``llmbridge.frames``) for the wrapped decoder of a typed framing."""
        events: list[StreamEvent] = self._inner.feed_frame(frame)
        return self._route(events) if events else events

    def resume_point(self) -> ResumePoint | None:
        """The wrapped decoder's (a resumable stream: ``providers.base``)."""
        return resume_point_of(self._inner)

    def held(self) -> list[StreamEvent]:
        """For a broken stream's partial response (``providers.base.held_of``): the wrapped
        decoder's held-back events, then the parser's end (a held marker prefix as text, a
        call cut off inside its markup ended with its error)."""
        out = self._route(held_of(self._inner))
        if not self._finished:
            self._finished = True
            out.extend(self._parser.close())
        return out

    def close(self) -> list[StreamEvent]:
        out = self._route(self._inner.close())
        if not self._finished:
            out.extend(self._parser.close())
        return out

    def _route(self, events: list[StreamEvent]) -> list[StreamEvent]:
        parser = self._parser
        out: list[StreamEvent] = []
        for ev in events:
            if isinstance(ev, TextDelta):
                if parser.passes(ev.text):
                    out.append(ev)
                else:
                    out.extend(parser.feed(ev.text))
            elif isinstance(ev, Finish):
                out.extend(parser.close())
                self._finished = True
                if parser.calls:
                    ev = self._finish_after_calls(ev)
                out.append(ev)
            else:
                if isinstance(ev, ToolCallStart):
                    parser.next_index = max(parser.next_index, ev.index + 1)
                out.append(ev)
        return out

    def _finish_after_calls(self, ev: Finish) -> Finish:
        """``stop`` becomes ``tool_calls``; a rescue is reported in ``provider_data``."""
        data = ev.provider_data
        if self._rescue:
            n, used = self._parser.calls, ", ".join(self._parser.dialects_used)
            warning = f"rescued {n} tool call(s) the server sent as text ({used} markup)"
            data = dict(data or {})
            data["warnings"] = [*data.get("warnings", ()), warning]
        reason = "tool_calls" if ev.reason == "stop" else ev.reason
        return Finish(reason=reason, raw_reason=ev.raw_reason, usage=ev.usage, provider_data=data)

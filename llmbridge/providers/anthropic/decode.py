"""Anthropic Messages stream → normalized events (sans-IO state machine).

Follows https://platform.claude.com/docs/en/build-with-claude/streaming. Rules:

* One ``orjson.loads`` per SSE event; dispatch on the payload's ``type`` (the ``event:``
  name when absent) through a table. ``feed_object(obj)`` takes an event parsed already (the
  clouds' framings: ``anthropic_clouds/bedrock_stream.py``) straight to that table. ``ping`` and unknown event types are skipped, so new API
  features never break old clients. Text and tool-input deltas (nearly every event) take an
  inlined fast path; everything else goes through the handlers.
* Content blocks are decoded by ``blocks.py``: text, tool calls and (redacted) thinking become
  their events; blocks the provider runs itself (server tools and their results, MCP, code
  execution, unknown block types) become one ``ProviderItem`` each at their
  ``content_block_stop``, in stream order, so ``resp.message`` carries them back.
* ``message_start`` → ``StreamStart`` (id, model; the request's warnings are the attempt loop's to add); content already in
  ``message.content`` is decoded as if it had streamed. A repeated ``message_start`` for the
  open message is ignored; one for another message while a message is open is a
  ``MalformedStreamError`` (a spliced stream).
* ``Finish`` is emitted by ``close()``: after ``message_stop``, or (gateways that drop it)
  after a ``message_delta`` stop reason with no block left open. Otherwise the stream was
  cut: ``StreamTruncatedError``. Messages concatenated in one body (``message_start`` after
  ``message_stop``) continue the same response; their usages add up (separate bills). A
  ``content_block_start`` after ``message_stop`` with no new ``message_start`` is a
  ``MalformedStreamError`` (it would open a block, maybe a tool call, after the message
  closed them all); stray deltas and stops there are skipped like any for a closed block. So
  no tool call is ever open at ``Finish``.
  ``Finish.provider_data["anthropic"]`` keeps metadata with no place in the message:
  ``stop_sequence`` / ``stop_details`` / ``container``, ``citations`` (``{"index", "citation"}``),
  ``input_errors`` of provider-run blocks, ``warnings`` (blocks recovered by position) and, for
  concatenated messages, ``message_ids``.
* ``event: error`` → the typed ``APIError`` (``overloaded_error`` → ``OverloadedError``),
  raised after every event before it was returned. After any error the decoder refuses input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import MalformedStreamError, StreamTruncatedError
from ...events import Finish, StreamEvent, StreamStart, TextDelta, ToolCallChunk, Usage
from ..decoding import GuardedDecoder
from .blocks import TEXT, ContentBlocks
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .usage import UsageSnapshot

__all__ = ["AnthropicDecoder"]

_Events = list[StreamEvent]
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_STOP_FIELDS = ("stop_sequence", "stop_details", "container")


class AnthropicDecoder(GuardedDecoder):
    """Feed it SSE events of one Messages stream; it returns normalized events."""

    def __init__(self, *, provider: str = "anthropic") -> None:
        self._provider = provider
        self._content = ContentBlocks(provider=provider)
        self._blocks = self._content.open
        self._started = False
        self._open = False  # a message is between message_start and message_stop
        self._stopped = False  # message_stop seen (for the last message)
        self._done = False
        self._failed = False
        self._message_ids: list[str] = []
        self._message_id: Any = None
        self._stop_reason: str | None = None
        self._extra: dict[str, Any] = {}
        self._usage = UsageSnapshot()
        self._past_usage: list[UsageSnapshot] = []

    # -- entry points ------------------------------------------------------------------
    def feed(self, event: str, data: str) -> _Events:
        if self._failed:  # checked inline: a method call per event shows in bench_stream
            raise self._refused()
        try:
            obj = _loads(data)
        except _JSONDecodeError:
            if not data or data.isspace():  # an empty event (httpx-sse, after an id: line)
                return []
            raise self._malformed(
                f"event {event or 'message'!r} carries non-JSON data: {data[:120]!r}"
            ) from None
        try:  # the hot path, text and tool-input deltas (nearly every event), read directly;
            if obj["type"] == "content_block_delta":  # odd shapes fall through to the handlers
                delta = obj["delta"]
                dtype = delta["type"]
                if dtype == "text_delta":
                    text = delta["text"]
                    b = self._blocks[obj["index"]]
                    if b.kind is TEXT and text.__class__ is str:
                        return [TextDelta(text)] if text else []
                elif dtype == "input_json_delta":
                    part = delta["partial_json"]
                    call = self._blocks[obj["index"]].call
                    if call is not None and part.__class__ is str:
                        if not part:
                            return []
                        call.chunks.append(part)
                        return [ToolCallChunk(call.id, call.index, part)]
        except (KeyError, TypeError, IndexError):
            pass
        return self._dispatch(event, obj, data)

    def feed_object(self, obj: Any) -> _Events:
        """One streaming event already parsed (Claude on the clouds: the event inside an AWS
        event-stream chunk, parsed there once): ``feed`` without its ``orjson.loads``. The hot
        path is ``feed``'s, repeated (a shared call per event shows in bench_stream)."""
        if self._failed:
            raise self._refused()
        try:  # the hot path, text and tool-input deltas (nearly every event), read directly;
            if obj["type"] == "content_block_delta":  # odd shapes fall through to the handlers
                delta = obj["delta"]
                dtype = delta["type"]
                if dtype == "text_delta":
                    text = delta["text"]
                    b = self._blocks[obj["index"]]
                    if b.kind is TEXT and text.__class__ is str:
                        return [TextDelta(text)] if text else []
                elif dtype == "input_json_delta":
                    part = delta["partial_json"]
                    call = self._blocks[obj["index"]].call
                    if call is not None and part.__class__ is str:
                        if not part:
                            return []
                        call.chunks.append(part)
                        return [ToolCallChunk(call.id, call.index, part)]
        except (KeyError, TypeError, IndexError):
            pass
        if obj.__class__ is not dict:
            raise self._malformed(f"event data is not a JSON object: {str(obj)[:120]!r}")
        return self._dispatch("", obj, "")

    def _dispatch(self, event: str, obj: Any, data: str) -> _Events:
        if obj.__class__ is not dict:
            raise self._malformed(f"event data is not a JSON object: {data[:120]!r}")
        kind = obj.get("type")
        if event == "error":
            kind = "error"
        handler = _HANDLERS.get(kind if kind.__class__ is str else event)
        if handler is None:
            return []
        return self._guarded(handler, obj, "event", kind)

    def close(self) -> _Events:
        if self._done or self._failed:
            return []
        if not self._stopped:
            lenient = self._open and self._stop_reason is not None and not self._blocks
            if not lenient:
                self._failed = True
                where = "message_start" if not self._started else "message_stop"
                raise StreamTruncatedError(
                    f"the stream ended before {where}", provider=self._provider
                )
        self._done = True
        return [self._finish()]

    # -- message events ----------------------------------------------------------------
    def _message_start(self, obj: dict[str, Any]) -> _Events:
        msg = obj.get("message")
        msg = msg if isinstance(msg, dict) else {}
        mid = msg.get("id")
        if self._open:
            if mid == self._message_id:
                return []  # a repeated message_start for the open message
            raise MalformedStreamError(
                f"message_start for {mid!r} while message {self._message_id!r} is still open",
                provider=self._provider,
            )
        if self._stopped:  # another message in the same body: continue the response
            self._past_usage.append(self._usage)
            self._usage = UsageSnapshot()
            self._stopped = False
        self._open = True
        self._message_id = mid
        if isinstance(mid, str):
            self._message_ids.append(mid)
        self._usage.merge(msg.get("usage"))
        out: _Events = []
        if not self._started:
            self._started = True
            model = msg.get("model")
            out.append(
                StreamStart(
                    response_id=mid if isinstance(mid, str) else None,
                    model=model if isinstance(model, str) else None,
                )
            )
        content = msg.get("content")
        if isinstance(content, list):  # content given up front: decode it as if streamed
            for index, block in enumerate(content):
                if isinstance(block, dict):
                    out.extend(self._content.start({"index": index, "content_block": block}))
                    out.extend(self._content.stop(index))
        self._note_stop(msg)
        return out

    def _note_stop(self, holder: dict[str, Any]) -> None:
        reason = holder.get("stop_reason")
        if isinstance(reason, str):
            self._stop_reason = reason
        for key in _STOP_FIELDS:
            value = holder.get(key)
            if value is not None:
                self._extra[key] = value

    def _message_delta(self, obj: dict[str, Any]) -> _Events:
        delta = obj.get("delta")
        if isinstance(delta, dict):
            self._note_stop(delta)
        self._usage.merge(obj.get("usage"))
        return []

    def _message_stop(self, obj: dict[str, Any]) -> _Events:
        out = self._content.stop_all()  # the provider closed the message: close its blocks
        self._open = False
        self._stopped = True
        return out

    def _error(self, obj: dict[str, Any]) -> _Events:
        raise stream_error(provider=self._provider, error=obj)

    def _block_start(self, obj: dict[str, Any]) -> _Events:
        if self._stopped:  # no block may open once the message stopped (Finish is next)
            raise MalformedStreamError(
                "content_block_start after message_stop without a new message_start",
                provider=self._provider,
            )
        return self._content.start(obj)

    def _block_delta(self, obj: dict[str, Any]) -> _Events:
        return self._content.delta(obj)

    def _block_stop(self, obj: dict[str, Any]) -> _Events:
        return self._content.stop(obj.get("index"))

    # -- finish ------------------------------------------------------------------------
    def _finish(self) -> Finish:
        snapshots = [s for s in (*self._past_usage, self._usage) if s.seen]
        usage: Usage | None = None
        if snapshots:
            usage = snapshots[0].usage()
            for snap in snapshots[1:]:
                more = snap.usage()
                usage = Usage(
                    input_tokens=usage.input_tokens + more.input_tokens,
                    output_tokens=usage.output_tokens + more.output_tokens,
                    cached_input_tokens=usage.cached_input_tokens + more.cached_input_tokens,
                    cache_write_tokens=usage.cache_write_tokens + more.cache_write_tokens,
                    reasoning_tokens=usage.reasoning_tokens + more.reasoning_tokens,
                )
        data: dict[str, Any] = dict(self._extra)
        content = self._content
        if content.citations:
            data["citations"] = content.citations
        if content.input_errors:
            data["input_errors"] = content.input_errors
        if content.warnings:
            data["warnings"] = content.warnings
        if len(self._message_ids) > 1:
            data["message_ids"] = self._message_ids
        return Finish(
            reason=map_finish_reason(self._stop_reason),
            raw_reason=self._stop_reason,
            usage=usage,
            provider_data={"anthropic": data} if data else None,
        )


_HANDLERS: dict[str, Callable[[AnthropicDecoder, dict[str, Any]], _Events]] = {
    "message_start": AnthropicDecoder._message_start,
    "content_block_start": AnthropicDecoder._block_start,
    "content_block_delta": AnthropicDecoder._block_delta,
    "content_block_stop": AnthropicDecoder._block_stop,
    "message_delta": AnthropicDecoder._message_delta,
    "message_stop": AnthropicDecoder._message_stop,
    "error": AnthropicDecoder._error,
}
"""Event type → handler (``ping`` and unknown types are absent: skipped)."""

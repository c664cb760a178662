"""Anthropic Messages stream → normalized events (sans-IO state machine).

Follows https://platform.claude.com/docs/en/build-with-claude/streaming. Rules:

* One ``orjson.loads`` per SSE event; dispatch on the payload's ``type`` (the ``event:``
  name when absent) through tables. ``ping`` and unknown event / block / delta types are
  skipped, so new API features never break old clients.
* ``message_start`` → ``StreamStart`` (id, model, the request's warnings); content already in
  ``message.content`` is decoded as if it had streamed. A repeated ``message_start`` for the
  open message is ignored; one for another message while a message is open is a
  ``MalformedStreamError`` (a spliced stream).
* ``text`` → ``TextDelta``. ``tool_use`` → ``ToolCallStart``, one ``ToolCallChunk`` per
  non-empty ``input_json_delta``, ``ToolCallEnd`` at ``content_block_stop`` (``{}`` / ``""``
  without input; unparsable input is flagged, never raised). ``thinking`` → ``ReasoningDelta``;
  its signature (last ``signature_delta``) closes it as ``ReasoningDelta("", signature=...)``.
  ``redacted_thinking`` → ``ReasoningDelta("", provider_data={"type": "redacted_thinking",
  "data": ...})``.
* Other blocks (server tools and their results, MCP, compaction, ...) are not tool-call
  events: they are kept whole (``input_json_delta`` parsed into ``input``, other string deltas
  appended to their field) in ``Finish.provider_data["anthropic"]["content_blocks"]`` as
  ``{"index": i, "block": {...}}``; ``citations_delta`` goes to ``...["citations"]``.
* ``Finish`` is emitted by ``close()``: after ``message_stop``, or (gateways that drop it)
  after a ``message_delta`` stop reason with no block left open. Otherwise the stream was
  cut: ``StreamTruncatedError``. Messages concatenated in one body (``message_start`` after
  ``message_stop``) continue the same response; their usages add up (separate bills).
* ``event: error`` → the typed ``APIError`` (``overloaded_error`` → ``OverloadedError``),
  raised after every event before it was returned. After any error the decoder refuses input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from ...events import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from ...stream.http_errors import api_error
from .finish_reasons import map_stop_reason
from .usage import UsageSnapshot

__all__ = ["AnthropicDecoder"]

_Events = list[StreamEvent]


class _Block:
    """One open content block."""

    __slots__ = (
        "call_index",
        "chunks",
        "id",
        "initial",
        "kind",
        "name",
        "raw",
        "signature",
        "strings",
    )

    def __init__(self, kind: str) -> None:
        self.kind = kind  # text | tool | thinking | redacted | kept
        self.id = ""
        self.name = ""
        self.call_index = 0
        self.chunks: list[str] = []
        self.initial: dict[str, Any] | None = None
        self.signature: str | None = None
        self.raw: dict[str, Any] = {}
        self.strings: dict[str, list[str]] = {}


def _parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    if not raw.strip():
        return {}, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return {}, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"tool arguments are a JSON {type(value).__name__}, not an object"
    return value, None


class AnthropicDecoder:
    """Feed it SSE events of one Messages stream; it returns normalized events."""

    def __init__(self, *, provider: str = "anthropic", warnings: list[str] | None = None) -> None:
        self._provider = provider
        self._warnings = list(warnings or [])
        self._blocks: dict[int, _Block] = {}
        self._tool_count = 0
        self._ids: set[str] = set()
        self._started = False
        self._open = False  # a message is between message_start and message_stop
        self._stopped = False  # message_stop seen (for the last message)
        self._done = False
        self._failed = False
        self._message_ids: list[str] = []
        self._message_id: Any = None
        self._stop_reason: str | None = None
        self._extra: dict[str, Any] = {}
        self._kept: list[dict[str, Any]] = []
        self._citations: list[dict[str, Any]] = []
        self._usage = UsageSnapshot()
        self._past_usage: list[UsageSnapshot] = []

    # -- entry points ------------------------------------------------------------------
    def feed(self, event: str, data: str) -> _Events:
        if self._failed:
            raise MalformedStreamError(
                "the decoder already failed on this stream", provider=self._provider
            )
        if not data:
            return []
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            self._failed = True
            raise MalformedStreamError(
                f"event {event or 'message'!r} carries non-JSON data: {data[:120]!r}",
                provider=self._provider,
            ) from None
        if not isinstance(obj, dict):
            self._failed = True
            raise MalformedStreamError(
                f"event data is not a JSON object: {data[:120]!r}", provider=self._provider
            )
        kind = obj.get("type")
        if kind == "content_block_delta":  # the hot path, inlined: ~90% of all events
            index = obj.get("index")
            b = self._blocks.get(index) if type(index) is int else None
            delta = obj.get("delta")
            if b is not None and type(delta) is dict:
                dtype = delta.get("type")
                if dtype == "text_delta" and b.kind == "text":
                    text = delta.get("text")
                    return [TextDelta(text)] if type(text) is str and text else []
                if dtype == "input_json_delta" and b.kind == "tool":
                    part = delta.get("partial_json")
                    if type(part) is not str or not part:
                        return []
                    b.chunks.append(part)
                    return [ToolCallChunk(b.id, b.call_index, part)]
        elif event == "error":
            kind = "error"
        handler = _HANDLERS.get(kind if isinstance(kind, str) else event)
        if handler is None:
            return []
        try:
            return handler(self, obj)
        except LLMBridgeError:
            self._failed = True
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
            self._failed = True
            raise MalformedStreamError(
                f"unreadable {kind!r} event: {type(exc).__name__}: {exc}", provider=self._provider
            ) from exc

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
                    warnings=self._warnings,
                )
            )
        content = msg.get("content")
        if isinstance(content, list):  # content given up front: decode it as if streamed
            for index, block in enumerate(content):
                if isinstance(block, dict):
                    out.extend(self._block_start({"index": index, "content_block": block}))
                    out.extend(self._block_stop({"index": index}))
        self._note_stop(msg)
        return out

    def _note_stop(self, holder: dict[str, Any]) -> None:
        reason = holder.get("stop_reason")
        if isinstance(reason, str):
            self._stop_reason = reason
        for key in ("stop_sequence", "stop_details", "container"):
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
        out: _Events = []
        for index in sorted(self._blocks):  # the provider closed the message: close its blocks
            out.extend(self._block_stop({"index": index}))
        self._open = False
        self._stopped = True
        return out

    def _error(self, obj: dict[str, Any]) -> _Events:
        raise api_error(provider=self._provider, status=None, error=obj)

    # -- content blocks ----------------------------------------------------------------
    def _block_start(self, obj: dict[str, Any]) -> _Events:
        index = obj.get("index")
        block = obj.get("content_block")
        if not isinstance(index, int) or not isinstance(block, dict):
            raise MalformedStreamError(f"content_block_start without index or block: {obj!r:.200}")
        if index in self._blocks:
            raise MalformedStreamError(
                f"content block {index} started twice", provider=self._provider
            )
        kind = block.get("type")
        if kind == "text":
            b = self._blocks[index] = _Block("text")
            text = block.get("text")
            cites = block.get("citations")
            if isinstance(cites, list):
                self._citations.extend({"index": index, "citation": c} for c in cites)
            return [TextDelta(text)] if isinstance(text, str) and text else []
        if kind == "tool_use":
            return self._tool_start(index, block)
        if kind == "thinking":
            b = self._blocks[index] = _Block("thinking")
            sig = block.get("signature")
            b.signature = sig if isinstance(sig, str) and sig else None
            text = block.get("thinking")
            return [ReasoningDelta(text)] if isinstance(text, str) and text else []
        if kind == "redacted_thinking":
            b = self._blocks[index] = _Block("redacted")
            b.raw = block
            return []
        b = self._blocks[index] = _Block("kept")
        b.raw = dict(block)
        return []

    def _tool_start(self, index: int, block: dict[str, Any]) -> _Events:
        b = self._blocks[index] = _Block("tool")
        call_id = block.get("id")
        call_id = (
            call_id
            if isinstance(call_id, str) and call_id
            else f"toolu_llmbridge_{self._tool_count}"
        )
        while call_id in self._ids:  # unique within the response, even across messages
            call_id += "_"
        self._ids.add(call_id)
        name = block.get("name")
        b.id, b.name = call_id, name if isinstance(name, str) else ""
        b.call_index = self._tool_count
        self._tool_count += 1
        initial = block.get("input")
        b.initial = initial if isinstance(initial, dict) and initial else None
        caller = block.get("caller")
        if caller is not None:
            b.raw = {"anthropic": {"caller": caller}}
        return [ToolCallStart(id=call_id, name=b.name, index=b.call_index)]

    def _block_delta(self, obj: dict[str, Any]) -> _Events:
        index = obj.get("index")
        delta = obj.get("delta")
        if not isinstance(index, int) or not isinstance(delta, dict):
            return []
        b = self._blocks.get(index)
        if b is None:
            return []
        kind = delta.get("type")
        handler = _DELTAS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            return handler(self, b, index, delta)
        if b.kind == "kept":  # e.g. compaction_delta: string fields append to the block
            for key, value in delta.items():
                if (
                    key != "type"
                    and isinstance(value, str)
                    and isinstance(b.raw.get(key, ""), (str, type(None)))
                ):
                    b.strings.setdefault(key, []).append(value)
        return []

    def _text_delta(self, b: _Block, index: int, delta: dict[str, Any]) -> _Events:
        text = delta.get("text")
        return [TextDelta(text)] if b.kind == "text" and isinstance(text, str) and text else []

    def _json_delta(self, b: _Block, index: int, delta: dict[str, Any]) -> _Events:
        part = delta.get("partial_json")
        if not isinstance(part, str) or not part:
            return []
        if b.kind == "tool":
            b.chunks.append(part)
            return [ToolCallChunk(id=b.id, index=b.call_index, arguments_delta=part)]
        if b.kind == "kept":
            b.chunks.append(part)
        return []

    def _thinking_delta(self, b: _Block, index: int, delta: dict[str, Any]) -> _Events:
        text = delta.get("thinking")
        return (
            [ReasoningDelta(text)]
            if b.kind == "thinking" and isinstance(text, str) and text
            else []
        )

    def _signature_delta(self, b: _Block, index: int, delta: dict[str, Any]) -> _Events:
        sig = delta.get("signature")
        if b.kind == "thinking" and isinstance(sig, str) and sig:
            b.signature = sig
        return []

    def _citations_delta(self, b: _Block, index: int, delta: dict[str, Any]) -> _Events:
        if "citation" in delta:
            self._citations.append({"index": index, "citation": delta["citation"]})
        return []

    def _block_stop(self, obj: dict[str, Any]) -> _Events:
        index = obj.get("index")
        b = self._blocks.pop(index, None) if isinstance(index, int) else None
        if b is None or b.kind == "text":
            return []
        if b.kind == "tool":
            return self._tool_end(b)
        if b.kind == "thinking":
            return [ReasoningDelta("", signature=b.signature)] if b.signature else []
        if b.kind == "redacted":
            data = {"type": "redacted_thinking", "data": b.raw.get("data")}
            return [ReasoningDelta("", provider_data=data)]
        block = b.raw
        entry: dict[str, Any] = {"index": index, "block": block}
        for key, parts in b.strings.items():
            block[key] = (block.get(key) or "") + "".join(parts)
        if b.chunks:
            raw = "".join(b.chunks)
            parsed, error = _parse_arguments(raw)
            block["input"] = parsed
            if error is not None:
                entry["raw_input"], entry["error"] = raw, error
        self._kept.append(entry)
        return []

    def _tool_end(self, b: _Block) -> _Events:
        out: _Events = []
        raw = "".join(b.chunks)
        if not raw and b.initial is not None:  # input given whole at block start
            raw = orjson.dumps(b.initial).decode()
            out.append(ToolCallChunk(id=b.id, index=b.call_index, arguments_delta=raw))
        arguments, error = _parse_arguments(raw)
        out.append(
            ToolCallEnd(
                id=b.id,
                index=b.call_index,
                name=b.name,
                arguments=arguments,
                raw_arguments=raw,
                error=error,
                provider_data=b.raw or None,
            )
        )
        return out

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
        if self._kept:
            data["content_blocks"] = self._kept
        if self._citations:
            data["citations"] = self._citations
        if len(self._message_ids) > 1:
            data["message_ids"] = self._message_ids
        return Finish(
            reason=map_stop_reason(self._stop_reason),
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

_DELTAS: dict[str, Callable[[AnthropicDecoder, _Block, int, dict[str, Any]], _Events]] = {
    "text_delta": AnthropicDecoder._text_delta,
    "input_json_delta": AnthropicDecoder._json_delta,
    "thinking_delta": AnthropicDecoder._thinking_delta,
    "signature_delta": AnthropicDecoder._signature_delta,
    "citations_delta": AnthropicDecoder._citations_delta,
}
"""Delta type → handler (unknown types skipped, or appended to kept blocks)."""

"""Anthropic content blocks → normalized events: start, deltas, stop (sans-IO).

Follows https://platform.claude.com/docs/en/build-with-claude/streaming (``content_block_*``)
and the block types of https://platform.claude.com/docs/en/api/messages. Rules:

* ``text`` → ``TextDelta`` (text given at block start counts); ``citations`` / a
  ``citations_delta`` are kept aside as ``{"index": i, "citation": ...}`` (the decoder puts
  them in ``Finish.provider_data``).
* ``tool_use`` → ``ToolCallStart`` at start, one ``ToolCallChunk`` per non-empty
  ``input_json_delta``, ``ToolCallEnd`` at stop (``{}`` / ``""`` without input; input given
  whole at start becomes one chunk; unparsable input is flagged, never raised). Ids, chunks
  and ends are the ledger's (``llmbridge.tool_calls``: a repeated id gets a suffix, a missing
  one is generated); a ``caller`` rides in ``ToolCallEnd.provider_data["anthropic"]``.
* ``thinking`` → ``ReasoningDelta``; its signature (the last ``signature_delta``) closes it as
  ``ReasoningDelta("", signature=...)``. ``redacted_thinking`` → ``ReasoningDelta("",
  provider_data={"type": "redacted_thinking", "data": ...})``.
* Every other block (server tool use and results, MCP, code execution, compaction, blocks
  newer than this code) is run by the provider, not the app: at its stop it becomes one
  ``ProviderItem`` holding the block as the API wants it sent back (``input_json_delta``
  parsed into ``input``, other string deltas appended to their field). Input that does not
  parse leaves ``input`` as streamed at start and is noted in ``input_errors``.
* Typed views (``hosted.py``): a citation naming a URL is also a ``Citation`` event where it
  arrives; a code execution result block is followed by its ``CodeOutput``.
* Unknown delta types are skipped.
* A delta or stop for the index right after the block started last, which no block started
  with, is recovered by position, as the anthropic SDK reads it: it belongs to that block if it
  is still open (real code-execution streams start a block after a ``*_tool_result`` with the
  index before its deltas'). The block takes the new index and a warning says so
  (``warnings``, kept in ``Finish.provider_data``). Other unknown indexes are skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import MalformedStreamError
from ...events import ProviderItem, ReasoningDelta, StreamEvent, TextDelta, ToolCallChunk
from ...tool_calls import ToolCall, ToolCallLedger, parse_arguments
from .hosted import BlockViews, cited_citation

__all__ = ["KEPT", "TEXT", "TOOL", "Block", "ContentBlocks"]

_Events = list[StreamEvent]

TEXT = "text"
TOOL = "tool"
THINKING = "thinking"
REDACTED = "redacted"
KEPT = "kept"
"""Block kinds (compared by identity on the hot path)."""

_STR = (str, type(None))


class Block:
    """One open content block."""

    __slots__ = ("call", "chunks", "initial", "kind", "raw", "signature", "strings")

    def __init__(self, kind: str, call: ToolCall | None = None) -> None:
        self.kind = kind
        self.call = call
        """The tool call of a ``tool_use`` block."""
        self.chunks: list[str] = []
        """Input JSON of a kept block."""
        self.initial: dict[str, Any] | None = None
        self.signature: str | None = None
        self.raw: dict[str, Any] = {}
        self.strings: dict[str, list[str]] = {}


class ContentBlocks:
    """The content blocks of one response (across concatenated messages)."""

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self.open: dict[int, Block] = {}
        """Open blocks by ``index`` (read directly by the decoder's hot path)."""
        self.calls = ToolCallLedger(id_prefix="toolu_llmbridge_")
        self.citations: list[dict[str, Any]] = []
        self.input_errors: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.views = BlockViews()
        self._last: tuple[int, Block] | None = None
        """The index and block started last."""
        self._used: set[int] = set()
        """Every index a block started with (or was recovered to)."""

    # -- start ---------------------------------------------------------------------------
    def start(self, obj: dict[str, Any]) -> _Events:
        index = obj.get("index")
        block = obj.get("content_block")
        if type(index) is not int or type(block) is not dict:
            raise MalformedStreamError(
                f"content_block_start without index or block: {obj!r:.200}",
                provider=self.provider,
            )
        if index in self.open:
            raise MalformedStreamError(
                f"content block {index} started twice", provider=self.provider
            )
        kind = block.get("type")
        starter = _STARTS.get(kind) if type(kind) is str else None
        self._used.add(index)
        if starter is not None:
            out = starter(self, index, block)
        else:
            out = []
            self.open[index] = Block(KEPT)
            self.open[index].raw = dict(block)
        self._last = index, self.open[index]
        return out

    def _text_start(self, index: int, block: dict[str, Any]) -> _Events:
        self.open[index] = Block(TEXT)
        cites = block.get("citations")
        out: _Events = []
        text = block.get("text")
        if type(text) is str and text:
            out.append(TextDelta(text))
        if type(cites) is list:
            self.citations.extend({"index": index, "citation": c} for c in cites)
            out.extend(c for c in map(cited_citation, cites) if c is not None)
        return out

    def _tool_start(self, index: int, block: dict[str, Any]) -> _Events:
        call_id, name, caller = block.get("id"), block.get("name"), block.get("caller")
        out: _Events = []
        call = self.calls.open(
            call_id if type(call_id) is str else None,
            name if type(name) is str else "",
            out,
            provider_data={"anthropic": {"caller": caller}} if caller is not None else None,
        )
        b = self.open[index] = Block(TOOL, call)
        initial = block.get("input")
        b.initial = initial if type(initial) is dict and initial else None
        return out

    def _thinking_start(self, index: int, block: dict[str, Any]) -> _Events:
        b = self.open[index] = Block(THINKING)
        sig = block.get("signature")
        b.signature = sig if type(sig) is str and sig else None
        text = block.get("thinking")
        return [ReasoningDelta(text)] if type(text) is str and text else []

    def _redacted_start(self, index: int, block: dict[str, Any]) -> _Events:
        b = self.open[index] = Block(REDACTED)
        b.raw = block
        return []

    # -- deltas (the decoder inlines text and tool-input deltas) -------------------------
    def delta(self, obj: dict[str, Any]) -> _Events:
        index = obj.get("index")
        delta = obj.get("delta")
        if type(index) is not int or type(delta) is not dict:
            return []
        b = self.open.get(index)
        if b is None:
            b = self._recover(index)
            if b is None:
                return []
        kind = delta.get("type")
        handler = _DELTAS.get(kind) if type(kind) is str else None
        if handler is not None:
            return handler(self, b, index, delta)
        if b.kind is KEPT:  # e.g. compaction_delta: string fields append to the block
            for key, value in delta.items():
                if key != "type" and type(value) is str and type(b.raw.get(key, "")) in _STR:
                    b.strings.setdefault(key, []).append(value)
        return []

    def _text_delta(self, b: Block, index: int, delta: dict[str, Any]) -> _Events:
        text = delta.get("text")
        return [TextDelta(text)] if b.kind is TEXT and type(text) is str and text else []

    def _json_delta(self, b: Block, index: int, delta: dict[str, Any]) -> _Events:
        part = delta.get("partial_json")
        if type(part) is not str or not part:
            return []
        if b.kind is TOOL:
            call = b.call
            assert call is not None
            call.chunks.append(part)
            return [ToolCallChunk(call.id, call.index, part)]
        if b.kind is KEPT:
            b.chunks.append(part)
        return []

    def _thinking_delta(self, b: Block, index: int, delta: dict[str, Any]) -> _Events:
        text = delta.get("thinking")
        return [ReasoningDelta(text)] if b.kind is THINKING and type(text) is str and text else []

    def _signature_delta(self, b: Block, index: int, delta: dict[str, Any]) -> _Events:
        sig = delta.get("signature")
        if b.kind is THINKING and type(sig) is str and sig:
            b.signature = sig
        return []

    def _citations_delta(self, b: Block, index: int, delta: dict[str, Any]) -> _Events:
        if "citation" not in delta:
            return []
        self.citations.append({"index": index, "citation": delta["citation"]})
        found = cited_citation(delta["citation"])
        return [found] if found is not None else []

    # -- stop ----------------------------------------------------------------------------
    def stop(self, index: Any) -> _Events:
        if type(index) is not int:
            return []
        if index not in self.open:
            self._recover(index)
        b = self.open.pop(index, None)
        if b is None:
            return []
        kind = b.kind
        if kind is TEXT:
            return []
        if kind is TOOL:
            return self._tool_end(b)
        if kind is THINKING:
            return [ReasoningDelta("", b.signature)] if b.signature else []
        if kind is REDACTED:
            data = {"type": "redacted_thinking", "data": b.raw.get("data")}
            return [ReasoningDelta("", provider_data=data)]
        block = b.raw
        for key, parts in b.strings.items():
            block[key] = (block.get(key) or "") + "".join(parts)
        if b.chunks:
            raw = "".join(b.chunks)
            parsed, error = parse_arguments(raw)
            if error is None:
                block["input"] = parsed
            else:
                self.input_errors.append({"index": index, "raw_input": raw, "error": error})
        return [ProviderItem(block), *self.views.events(block)]

    def _recover(self, index: int) -> Block | None:
        """The block started last, moved to ``index`` (see module docstring), or ``None``."""
        last = self._last
        if last is None or index != last[0] + 1 or index in self._used:
            return None
        started, b = last
        if self.open.get(started) is not b:
            return None
        del self.open[started]
        self.open[index] = b
        self._last = index, b
        self._used.add(index)
        self.warnings.append(
            f"content block started with index {started} was addressed as {index}: "
            "read by position, as the anthropic SDK does"
        )
        return b

    def _tool_end(self, b: Block) -> _Events:
        call = b.call
        assert call is not None
        out: _Events = []
        if not call.chunks and b.initial is not None:  # input given whole at block start
            self.calls.add(call, orjson.dumps(b.initial).decode(), out)
        self.calls.end(call, out)
        return out

    def stop_all(self) -> _Events:
        """Close every open block, in index order (the provider closed the message)."""
        out: _Events = []
        for index in sorted(self.open):
            out.extend(self.stop(index))
        return out


_STARTS: dict[str, Callable[[ContentBlocks, int, dict[str, Any]], _Events]] = {
    "text": ContentBlocks._text_start,
    "tool_use": ContentBlocks._tool_start,
    "thinking": ContentBlocks._thinking_start,
    "redacted_thinking": ContentBlocks._redacted_start,
}
"""Block type → start handler (every other type is kept whole for a ``ProviderItem``)."""

_DELTAS: dict[str, Callable[[ContentBlocks, Block, int, dict[str, Any]], _Events]] = {
    "text_delta": ContentBlocks._text_delta,
    "input_json_delta": ContentBlocks._json_delta,
    "thinking_delta": ContentBlocks._thinking_delta,
    "signature_delta": ContentBlocks._signature_delta,
    "citations_delta": ContentBlocks._citations_delta,
}
"""Delta type → handler (unknown types skipped, or appended to kept blocks)."""

"""Streamed ``delta.tool_calls`` fragments → tool-call start / chunk / end events.

Rules (each from a server seen in the wild):

* a fragment joins an open call by ``id`` first (servers that repeat id and name), then by
  ``index`` (OpenAI: id and name only on the first fragment, later ones carry ``index`` and
  argument text); a new ``id`` always starts a new call, even at an ``index`` already used
  (gateways that send ``index: 0`` for every parallel call); a fragment with neither starts a
  new call when it carries a name, else joins the latest call (servers that omit ``index``);
* the wire ``index`` may start anywhere (1 on Anthropic's compatible endpoint): our
  ``ToolCallStart.index`` is the call's position in this response, from 0;
* missing ids are generated (``call_<n>``, flagged ``generated_id`` in ``provider_data``);
  ``arguments`` given as an object is serialized; absent / ``null`` arguments add nothing, and
  an empty call ends with ``{}``;
* calls end only in ``end_all`` (finish_reason, ``[DONE]``, end of body), never because the
  buffered text parses; the start is held back until the call has a name.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...events import StreamEvent, ToolCallChunk, ToolCallEnd, ToolCallStart
from ..arguments import parse_arguments

__all__ = ["ToolCallTracker"]


class _Call:
    __slots__ = ("chunks", "generated", "id", "index", "name", "started", "wire_index")

    def __init__(self, call_id: str, index: int, wire_index: Any, generated: bool) -> None:
        self.id = call_id
        self.index = index
        self.wire_index = wire_index
        self.generated = generated
        self.name: str | None = None
        self.started = False
        self.chunks: list[str] = []


class ToolCallTracker:
    def __init__(self, *, use_index: bool = True) -> None:
        self._use_index = use_index
        self._open: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        self._by_index: dict[Any, _Call] = {}
        self._ids: set[str] = set()
        self.count = 0
        """Calls ever started in this response."""

    def feed(self, fragments: list[Any], out: list[StreamEvent], *, id_prefix: str) -> None:
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            function = fragment.get("function")
            if not isinstance(function, dict):
                function = {}
            name = function.get("name")
            call = self._target(fragment, name, id_prefix)
            if call.name is None and isinstance(name, str) and name:
                call.name = name
            args = function.get("arguments")
            if args is not None and not isinstance(args, str):
                args = orjson.dumps(args).decode()
            if not call.started and call.name is not None:
                call.started = True
                out.append(ToolCallStart(call.id, call.name, call.index))
                if call.chunks:  # text that came before the name
                    out.append(ToolCallChunk(call.id, call.index, "".join(call.chunks)))
            if args:
                call.chunks.append(args)
                if call.started:
                    out.append(ToolCallChunk(call.id, call.index, args))

    def continuation(self, fragment: Any) -> list[StreamEvent] | None:
        """The common fragment, decoded fast: no ``id``, the ``index`` of a started call, text
        arguments. ``None`` (nothing changed) for anything else: ``feed`` decodes it then."""
        if self._use_index and type(fragment) is dict and not fragment.get("id"):
            index = fragment.get("index")
            if type(index) is int:
                call = self._by_index.get(index)
                function = fragment.get("function")
                if call is not None and call.started and type(function) is dict:
                    args = function.get("arguments")
                    if type(args) is str:
                        if not args:
                            return []
                        call.chunks.append(args)
                        return [ToolCallChunk(call.id, call.index, args)]
        return None

    def _target(self, fragment: dict[str, Any], name: Any, id_prefix: str) -> _Call:
        call_id = fragment.get("id")
        wire_index = fragment.get("index") if self._use_index else None
        if not isinstance(wire_index, int):
            wire_index = None
        if isinstance(call_id, str) and call_id:
            known = self._by_id.get(call_id)
            if known is not None and (wire_index is None or wire_index == known.wire_index):
                return known
            return self._new(call_id, wire_index, id_prefix)
        if wire_index is not None:
            known = self._by_index.get(wire_index)
            return known if known is not None else self._new(None, wire_index, id_prefix)
        last = self._open[-1] if self._open else None
        if last is None or (name and last.name is not None):  # a named fragment: a new call
            return self._new(None, None, id_prefix)
        return last

    def _new(self, call_id: str | None, wire_index: Any, id_prefix: str) -> _Call:
        generated = call_id is None
        if call_id is None:
            call_id = f"{id_prefix}{self.count}"
        base, n = call_id, 1
        while call_id in self._ids:  # keep ids unique within the response
            n += 1
            call_id = f"{base}_{n}"
        call = _Call(call_id, self.count, wire_index, generated)
        self.count += 1
        self._ids.add(call_id)
        self._open.append(call)
        self._by_id[base] = call
        if wire_index is not None:
            self._by_index[wire_index] = call
        return call

    def end_all(self, out: list[StreamEvent]) -> None:
        """Close every open call (finish_reason, ``[DONE]`` or end of body)."""
        for call in self._open:
            error = None
            if not call.started:
                out.append(ToolCallStart(call.id, "", call.index))
                if call.chunks:
                    out.append(ToolCallChunk(call.id, call.index, "".join(call.chunks)))
                error = "the provider never named this tool call"
            raw = "".join(call.chunks)
            arguments, parse_error = parse_arguments(raw)
            out.append(
                ToolCallEnd(
                    call.id,
                    call.index,
                    call.name or "",
                    arguments,
                    raw,
                    error=error or parse_error,
                    provider_data={"generated_id": True} if call.generated else None,
                )
            )
        self._open.clear()
        self._by_id.clear()
        self._by_index.clear()

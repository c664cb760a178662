"""Streamed ``delta.tool_calls`` fragments → tool-call start / chunk / end events.

Rules (each from a server seen in the wild):

* a fragment joins an open call by ``id`` first (servers that repeat id and name), then by
  ``index`` (OpenAI: id and name only on the first fragment, later ones carry ``index`` and
  argument text); a new ``id`` always starts a new call, even at an ``index`` already used
  (gateways that send ``index: 0`` for every parallel call); a fragment with neither starts a
  new call when it carries a name, else joins the latest call (servers that omit ``index``);
* the wire ``index`` may start anywhere (1 on Anthropic's compatible endpoint): our
  ``ToolCallStart.index`` is the call's position in this response, from 0;
* a custom (freeform) tool call arrives as ``{"index", "id", "type": "custom", "custom":
  {"name", "input"}}`` with later fragments carrying ``custom.input`` text. The spec's chunk
  schema (openai SDK ``ChoiceDeltaToolCall``, type ``function`` only) has no such member yet;
  this is the non-streaming ``ChatCompletionMessageCustomToolCall`` shape as reported streamed
  in openai/openai-python#2530 and openai/openai-openapi#576. Its text is ``raw_arguments``,
  its ``arguments`` are ``{"input": <text>}`` (never a JSON error) and
  ``provider_data["custom"] = True`` marks it for the round trip (``messages.py``);
* ``extra_content`` on a fragment (Gemini's OpenAI endpoint: ``{"google": {"thought_signature":
  ...}}``) is kept in the call's ``provider_data["extra_content"]``, tagged with
  ``provider_data["provider"]``, for the round trip (``round_trip.py``);
* ``arguments`` given as an object is serialized; absent / ``null`` arguments add nothing;
* ids, positions, chunks and ends are the ledger's (``llmbridge.tool_calls``): missing ids
  are generated (``call_<n>``), the start waits for the name, and calls end only in
  ``end_all`` (finish_reason, ``[DONE]``, end of body), never because the text parses.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...events import StreamEvent, ToolCallChunk
from ...tool_calls import ToolCall, ToolCallLedger
from ...tool_spec import CUSTOM_INPUT
from .messages import CUSTOM
from .round_trip import EXTRA_CONTENT

__all__ = ["ToolCallTracker"]


class ToolCallTracker:
    """Where each ``delta.tool_calls`` fragment goes (see module docstring)."""

    def __init__(self, *, use_index: bool = True, provider: str = "openai") -> None:
        self._use_index = use_index
        self._provider = provider
        self.ledger = ToolCallLedger()
        self._latest: ToolCall | None = None
        self._by_id: dict[str, ToolCall] = {}
        self._by_index: dict[int, ToolCall] = {}
        self._wire_index: dict[str, int | None] = {}  # call id -> the wire index it came with
        self._calls: list[ToolCall] = []  # every call, in opening order

    @property
    def count(self) -> int:
        """Calls ever started in this response."""
        return self.ledger.count

    def feed(self, fragments: list[Any], out: list[StreamEvent], *, id_prefix: str) -> None:
        self.ledger.id_prefix = id_prefix
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            function = fragment.get("function")
            custom = fragment.get("custom")
            if not isinstance(function, dict):
                function = {}
            if isinstance(custom, dict) and not function:
                function = {"name": custom.get("name"), "arguments": custom.get("input")}
            else:
                custom = None
            name = function.get("name")
            call = self._target(fragment, name, out)
            if custom is not None and not (call.provider_data or {}).get(CUSTOM):
                call.provider_data = {**(call.provider_data or {}), CUSTOM: True}
            extra = fragment.get(EXTRA_CONTENT)
            if isinstance(extra, dict) and extra:
                data = call.provider_data or {}
                call.provider_data = {**data, EXTRA_CONTENT: extra, "provider": self._provider}
            if call.name is None and isinstance(name, str) and name:
                self.ledger.name(call, name, out)
            args = function.get("arguments")
            if args is not None and not isinstance(args, str):
                args = orjson.dumps(args).decode()
            if args:
                self.ledger.add(call, args, out)

    def continuation(self, fragment: Any) -> list[StreamEvent] | None:
        """The common fragment, decoded fast: no ``id``, the ``index`` of a started call, text
        arguments. ``None`` (nothing changed) for anything else: ``feed`` decodes it then."""
        if (
            self._use_index
            and type(fragment) is dict
            and not fragment.get("id")
            and EXTRA_CONTENT not in fragment
        ):
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

    def _target(self, fragment: dict[str, Any], name: Any, out: list[StreamEvent]) -> ToolCall:
        call_id = fragment.get("id")
        wire_index = fragment.get("index") if self._use_index else None
        if not isinstance(wire_index, int):
            wire_index = None
        if isinstance(call_id, str) and call_id:
            known = self._by_id.get(call_id)
            if known is not None and (
                wire_index is None or wire_index == self._wire_index[known.id]
            ):
                return known
            return self._new(call_id, wire_index, out)
        if wire_index is not None:
            known = self._by_index.get(wire_index)
            return known if known is not None else self._new(None, wire_index, out)
        last = self._latest
        if last is None or (name and last.name is not None):  # a named fragment: a new call
            return self._new(None, None, out)
        return last

    def _new(self, call_id: str | None, wire_index: int | None, out: list[StreamEvent]) -> ToolCall:
        call = self.ledger.open(call_id, None, out)
        self._calls.append(call)
        self._latest = call
        self._wire_index[call.id] = wire_index
        if call_id:
            self._by_id[call_id] = call
        if wire_index is not None:
            self._by_index[wire_index] = call
        return call

    def end_all(self, out: list[StreamEvent]) -> None:
        """Close every open call (finish_reason, ``[DONE]`` or end of body)."""
        for call in self._calls:  # a custom call's text is its one argument, not JSON
            if (call.provider_data or {}).get(CUSTOM):
                self.ledger.end(call, out, parsed=({CUSTOM_INPUT: call.raw_arguments}, None))
            else:
                self.ledger.end(call, out)
        self._calls.clear()
        self._latest = None
        self._by_id.clear()
        self._by_index.clear()

"""Tool-call tracking for the Responses decoder: start, chunks, exactly one end per call.

Follows https://platform.openai.com/docs/api-reference/responses-streaming
(``response.output_item.added``, ``response.function_call_arguments.delta`` / ``.done``;
for custom tools ``response.custom_tool_call_input.delta`` / ``.done``).

Rules:

* Function calls (``function_call`` items) and custom (freeform) tool calls
  (``custom_tool_call`` items) share one life cycle. A custom call's text is its ``input``
  (deltas, the done event's ``input``, the item's ``input``), not JSON: ``raw_arguments`` is
  that text, ``arguments`` is ``{"input": <text>}`` (never a parse error), and
  ``provider_data["custom"] = True`` marks it so ``messages.py`` sends it back as a
  ``custom_tool_call`` answered by a ``custom_tool_call_output``.

* A call's id is its ``call_id`` (what ``function_call_output`` answers), else its item id,
  else a generated ``call_<n>`` (the ledger, ``llmbridge.tool_calls``, makes and keeps ids,
  chunks and ends). It is found again by ``output_index`` first, then ``item_id`` (argument
  deltas carry ``item_id``, not ``call_id``; some gateways rotate item ids).
* Each call starts exactly once. An ``output_item.added`` for an item already open (same
  ``output_index``, or same item id) is a repeat and ignored, whatever ids it carries (Azure
  and GitHub Copilot rotate ids between events of one item); one for an item already ended
  (its done event came first, or a late duplicate) is ignored too: an ended call never starts
  again. A *different* item reusing the ``call_id`` of a call already started is a spliced
  stream: ``MalformedStreamError`` (two calls with one id could not be answered apart).
* The first done event ends the call; later ones for the same item are ignored. Arguments only
  in the done event become one chunk; done arguments that extend the streamed text add the
  missing tail once; a done text that contradicts what streamed is ignored (chunks cannot be
  taken back and must join to ``raw_arguments``).
* Arguments that are not a JSON object give ``arguments={}`` and ``error`` (flagged, no crash);
  empty arguments are ``{}``. The item id is kept in ``provider_data["item_id"]``, the
  ``namespace`` of a function a tool search loaded in ``provider_data["namespace"]``.
"""

from __future__ import annotations

from typing import Any

from ...errors import MalformedStreamError
from ...events import StreamEvent, ToolCallChunk
from ...tool_calls import ToolCall, ToolCallLedger
from ...tool_spec import CUSTOM_INPUT
from ..openai import CUSTOM
from .messages import PROVIDER_NAME
from .shapes import Key, item_key, str_or_none

__all__ = ["ToolCalls"]


class ToolCalls:
    """The function calls of one response, by the keys their events carry."""

    def __init__(self) -> None:
        self.ledger = ToolCallLedger()
        self._open: dict[Key, ToolCall] = {}
        self._closed: set[Key] = set()
        self._custom: set[str] = set()  # ids of the custom (freeform) calls

    @property
    def count(self) -> int:
        """How many calls started."""
        return self.ledger.count

    def start(
        self, obj: dict[str, Any], item: dict[str, Any], out: list[StreamEvent]
    ) -> Key | None:
        """Start the call of an added ``item``: its key, or ``None`` if that call already ended.

        A repeat of an open call's ``output_item.added`` starts nothing and returns its key.
        """
        key = item_key(obj)
        item_id = str_or_none(item.get("id")) or None
        for known in (key, item_id):
            if known is not None:
                if known in self._open:
                    return known  # the same item added again
                if known in self._closed:
                    return None  # ended already: an ended call never starts again
        call_id = str_or_none(item.get("call_id")) or item_id
        if call_id and call_id in self.ledger:
            raise MalformedStreamError(
                f"function call id {call_id!r} reused by another output item ({key!r})",
                provider=PROVIDER_NAME,
            )
        name = str_or_none(item.get("name")) or ""
        data: dict[str, Any] | None = {"item_id": item_id} if item_id is not None else None
        namespace = str_or_none(item.get("namespace"))
        if namespace:  # a function a tool search loaded: its namespace goes back with it
            data = {**(data or {}), "namespace": namespace}
        custom = item.get("type") == "custom_tool_call"
        if custom:
            data = {**(data or {}), CUSTOM: True}
        call = self.ledger.open(call_id, name, out, provider_data=data)
        if custom:
            self._custom.add(call.id)
        self._open[key] = call
        if item_id is not None and item_id != key:
            self._open[item_id] = call
        return key

    def find(self, obj: dict[str, Any]) -> Key | None:
        for key in (obj.get("output_index"), obj.get("item_id")):
            if isinstance(key, (int, str)) and key in self._open:
                return key
        return None

    def chunk(self, obj: dict[str, Any], delta: str) -> list[StreamEvent]:
        """The chunk event for an argument ``delta`` of the call ``obj`` names (if open)."""
        index = obj.get("output_index")
        call = self._open.get(index) if index.__class__ is int else None
        if call is None:
            key = self.find(obj)
            if key is None:
                return []
            call = self._open[key]
        if not delta:
            return []
        call.chunks.append(delta)
        return [ToolCallChunk(call.id, call.index, delta)]

    def done(
        self, obj: dict[str, Any], item: dict[str, Any] | None, out: list[StreamEvent]
    ) -> None:
        """End the call of a done event (``item`` is the ``output_item.done`` item, if any)."""
        source = obj if item is None else item
        key = self.find(obj)
        if key is None:
            if item is None or item_key(obj) in self._closed:
                return
            key = self.start(obj, item, out)  # done without added (resumed stream)
            if key is None:
                return
        field = "input" if self._open[key].id in self._custom else "arguments"
        self.end(key, str_or_none(source.get(field)), str_or_none(source.get("name")), out)

    def end(self, key: Key, final: str | None, name: str | None, out: list[StreamEvent]) -> None:
        call = self._open.get(key)
        if call is None:
            return
        for k in [k for k, c in self._open.items() if c is call]:
            del self._open[k]
            self._closed.add(k)
        parsed = None
        if call.id in self._custom:  # raw text: the ledger's own rule for a done text, no JSON
            text = call.raw_arguments
            if final is not None and len(final) > len(text) and final.startswith(text):
                text = final
            parsed = ({CUSTOM_INPUT: text}, None)
        self.ledger.end(call, out, final=final, name=name, parsed=parsed)

    def end_all(self, out: list[StreamEvent]) -> None:
        """Close every open call (the response finished)."""
        for key in list(self._open):
            self.end(key, None, None, out)

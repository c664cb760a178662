"""The output items of a Responses stream: ``response.output_item.added`` / ``.done`` for
messages, function and custom tool calls, reasoning, compaction, and the items the provider
runs itself (kept in stream order as ``ProviderItem``, with their typed views).

Rules: ``OutputItems`` holds these handlers of ``ResponsesDecoder`` (``decode.py``, whose
docstring states the stream's rules) and keeps no state of its own: it reads and writes the
decoder's. A done item is dispatched by its ``type`` through ``_ITEM_DONE``, a table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...events import (
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    TextPhase,
    ToolSearchCall,
)
from .compaction import final_item
from .hosted import citation, item_events
from .shapes import Key, item_key, str_or_none, texts
from .tool_calls import ToolCalls

__all__ = ["OutputItems"]

_Out = list[StreamEvent]


class OutputItems:
    """The decoder's output-item handlers (see ``decode.py``)."""

    _calls: ToolCalls
    _held: dict[str, Any] | None
    _item_text: bool
    _phased: bool
    _phase_item: Any
    _refusal: list[str]
    _reasoning: dict[Key, Any]
    _asks_app: bool

    def _on_item_added(self, obj: dict[str, Any], out: _Out) -> None:
        if self._held is not None:
            self._release(None, out)
        item = obj.get("item")
        if not isinstance(item, dict):
            return
        kind = str_or_none(item.get("type"))
        if kind in _CALL_ITEMS:
            self._calls.start(obj, item, out)
        elif kind == "message":
            self._announce_phase(obj, item, out)

    def _announce_phase(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        """A ``TextPhase`` before a message item's text when it carries a ``phase`` (or, after
        phased messages, ``TextPhase(None)`` for one without)."""
        phase = str_or_none(item.get("phase"))
        if phase is None and not self._phased:
            return
        key = item_key(obj)
        if key == self._phase_item:
            return  # a repeated output_item.added, or the done event of an announced item
        self._phase_item = key
        self._phased = True
        out.append(TextPhase(phase))

    def _on_args_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if isinstance(delta, str):
            out.extend(self._calls.chunk(obj, delta))

    def _on_args_done(self, obj: dict[str, Any], out: _Out) -> None:
        self._calls.done(obj, None, out)

    def _on_item_done(self, obj: dict[str, Any], out: _Out) -> None:
        item = obj.get("item")
        held = self._held
        if held is not None and not (isinstance(item, dict) and item.get("id") == held.get("id")):
            self._release(None, out)  # another item: the held one goes out first (stream order)
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        handler = _ITEM_DONE.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, obj, item, out)
        else:  # run by the provider (web search, MCP, code interpreter, ...): kept in order
            out.append(ProviderItem(item))
            views = item_events(item)  # its typed view, if any (approval, code, image, search)
            out.extend(views)
            self._asks_app = self._asks_app or any(_waits_for_app(v) for v in views)

    def _function_call_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        self._calls.done(obj, item, out)

    def _message_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        if self._item_text:
            self._item_text = False
            return
        self._announce_phase(obj, item, out)  # a message given whole, with no added event
        content = item.get("content")
        refusal = "".join(texts(content, ("refusal",), field="refusal"))
        text = "".join(texts(content, ("output_text",))) + refusal
        if refusal:
            self._refusal.append(refusal)
        if text:
            out.append(TextDelta(text))
        for part in content if isinstance(content, list) else ():
            notes = part.get("annotations") if isinstance(part, dict) else None
            for note in notes if isinstance(notes, list) else ():
                found = citation(note, str(part.get("text") or ""))
                if found is not None:
                    out.append(found)

    def _compaction_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        self._held = item  # its final form may come with response.completed (_release); a
        # repeated done event of the held item replaces it (one ProviderItem per item)

    def _release(self, response: Any, out: _Out) -> None:
        """The held compaction item as a ``ProviderItem``, in its final form (``final_item``:
        the one in ``response.output``, at ``response.completed``)."""
        held = self._held
        assert held is not None
        self._held = None
        out.append(ProviderItem(final_item(held, response)))

    def _reasoning_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        text = ""
        if item_key(obj) not in self._reasoning:
            parts = texts(item.get("summary"), ("summary_text",))
            text = "\n\n".join(parts or texts(item.get("content"), ("reasoning_text",)))
        data: dict[str, Any] = {}
        if isinstance(item.get("id"), str):
            data["id"] = item["id"]
        if isinstance(item.get("encrypted_content"), str):
            data["encrypted_content"] = item["encrypted_content"]
        if text or data:
            out.append(ReasoningDelta(text, provider_data=data or None))


_CALL_ITEMS = frozenset({"function_call", "custom_tool_call"})
_ItemHandler = Callable[[OutputItems, dict[str, Any], dict[str, Any], _Out], None]

_ITEM_DONE: dict[str, _ItemHandler] = {
    "function_call": OutputItems._function_call_done,
    "custom_tool_call": OutputItems._function_call_done,
    "message": OutputItems._message_done,
    "reasoning": OutputItems._reasoning_done,
    "compaction": OutputItems._compaction_done,
}


def _waits_for_app(event: object) -> bool:
    """A client-executed tool search with no result: the app answers it, as it answers calls."""
    return isinstance(event, ToolSearchCall) and event.execution == "client" and event.tools is None

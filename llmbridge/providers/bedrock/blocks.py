"""The content blocks of one Converse stream: starts, deltas and stops → normalized events.

Rules (a block is addressed by ``contentBlockIndex``):

* A block with no ``contentBlockStart`` is text or reasoning: its deltas say which.
  ``text`` → ``TextDelta``; ``reasoningContent.text`` → ``ReasoningDelta``; ``.signature`` →
  an empty ``ReasoningDelta`` carrying it; ``.redactedContent`` → an empty ``ReasoningDelta``
  whose ``provider_data[REDACTED]`` keeps the bytes (base64) to send back.
* ``start.toolUse`` → a tool call (``ToolCallLedger``: start at once, one chunk per
  ``toolUse.input`` fragment, the end at ``contentBlockStop``). A ``toolUse`` of type
  ``server_tool_use`` is run by Bedrock itself (Nova's code interpreter, grounding): not a tool
  call for the app; like ``start.toolResult`` (its result) and ``start.image`` it is kept
  whole and becomes one ``ProviderItem`` at its stop, shaped as the ``ContentBlock`` to send
  back. A code interpreter result's ``stdOut`` / ``stdErr`` / ``exitCode`` are also a
  ``CodeOutput``.
* ``citation`` deltas: a web location → a ``Citation``; every citation is kept, with its
  block index, for ``Finish.provider_data``.
* Unknown start and delta members are skipped (new API features never break old clients).
"""

from __future__ import annotations

from typing import Any

import orjson

from ...events import Citation, CodeOutput, ProviderItem, ReasoningDelta, StreamEvent, TextDelta
from ...tool_calls import ToolCall, ToolCallLedger
from .messages import REDACTED

__all__ = ["ContentBlocks"]

_Events = list[StreamEvent]


class _Item:
    """A block Bedrock ran itself, kept whole until its stop."""

    __slots__ = ("block", "input", "kind")

    def __init__(self, kind: str, block: dict[str, Any]) -> None:
        self.kind = kind
        self.block = block
        self.input: list[str] = []


class ContentBlocks:
    __slots__ = ("calls", "citations", "items", "ledger", "provider")

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self.ledger = ToolCallLedger(id_prefix="tooluse_")
        self.calls: dict[Any, ToolCall] = {}
        self.items: dict[Any, _Item] = {}
        self.citations: list[dict[str, Any]] = []

    def start(self, index: Any, start: dict[str, Any]) -> _Events:
        out: _Events = []
        self.stop(index)  # a block index reused without a stop: the old block ends first
        use = start.get("toolUse")
        if isinstance(use, dict):
            if use.get("type") == "server_tool_use":
                self.items[index] = _Item("toolUse", dict(use))
            else:
                name = use.get("name")
                call_id = use.get("toolUseId")
                self.calls[index] = self.ledger.open(
                    call_id if isinstance(call_id, str) else None,
                    name if isinstance(name, str) else None,
                    out,
                )
            return out
        for kind in ("toolResult", "image"):
            member = start.get(kind)
            if isinstance(member, dict):
                block = dict(member)
                if kind == "toolResult":
                    block["content"] = []
                self.items[index] = _Item(kind, block)
        return out

    def delta(self, index: Any, delta: dict[str, Any]) -> _Events:
        out: _Events = []
        text = delta.get("text")
        if isinstance(text, str):
            if text:
                out.append(TextDelta(text))
            return out
        use = delta.get("toolUse")
        if isinstance(use, dict) and isinstance(use.get("input"), str):
            call = self.calls.get(index)
            if call is not None:
                self.ledger.add(call, use["input"], out)
            elif index in self.items:
                self.items[index].input.append(use["input"])
            return out
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, dict):
            self._reasoning(reasoning, out)
            return out
        citation = delta.get("citation")
        if isinstance(citation, dict):
            self.citations.append({"index": index, "citation": citation})
            web = (citation.get("location") or {}).get("web")
            if isinstance(web, dict) and isinstance(web.get("url"), str):
                title = citation.get("title") or web.get("domain")
                out.append(Citation(web["url"], title if isinstance(title, str) else None))
            return out
        result = delta.get("toolResult")
        item = self.items.get(index)
        if isinstance(result, list) and item is not None and item.kind == "toolResult":
            item.block["content"].extend(result)
        image = delta.get("image")
        if isinstance(image, dict) and item is not None and item.kind == "image":
            item.block.update(image)
        return out

    @staticmethod
    def _reasoning(reasoning: dict[str, Any], out: _Events) -> None:
        text = reasoning.get("text")
        if isinstance(text, str) and text:
            out.append(ReasoningDelta(text))
        signature = reasoning.get("signature")
        if isinstance(signature, str) and signature:
            out.append(ReasoningDelta("", signature=signature))
        redacted = reasoning.get("redactedContent")
        if isinstance(redacted, str) and redacted:
            out.append(ReasoningDelta("", provider_data={REDACTED: redacted}))

    def stop(self, index: Any) -> _Events:
        out: _Events = []
        call = self.calls.pop(index, None)
        if call is not None:
            self.ledger.end(call, out)
        item = self.items.pop(index, None)
        if item is not None:
            self._item(item, out)
        return out

    def _item(self, item: _Item, out: _Events) -> None:
        block = item.block
        if item.kind == "toolUse":
            raw = "".join(item.input)
            try:
                block["input"] = orjson.loads(raw) if raw.strip() else {}
            except orjson.JSONDecodeError:
                block["input"] = {"raw": raw}
        out.append(ProviderItem({item.kind: block}, self.provider))
        if item.kind == "toolResult":
            for content in block["content"]:
                result = content.get("json") if isinstance(content, dict) else None
                if isinstance(result, dict) and "stdOut" in result:
                    code = result.get("exitCode")
                    out.append(
                        CodeOutput(
                            stdout=str(result.get("stdOut") or ""),
                            stderr=str(result.get("stdErr") or ""),
                            exit_code=code if type(code) is int else None,
                        )
                    )

    def stop_all(self) -> _Events:
        out: _Events = []
        for index in [*self.calls, *self.items]:
            out.extend(self.stop(index))
        return out

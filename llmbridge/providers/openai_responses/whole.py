"""A whole Responses answer (``stream=False``, or a ``GET /responses/{id}``) → normalized
events, through the stream decoder (``providers.whole.ReplayDecoder``).

Rules: the body (a ``response`` object: ``output`` items, ``status``, ``usage``) is restated
as its stream: ``response.created`` (the response without its output), per output item its
``output_item.added``, for a ``message`` each ``output_text`` part as one delta with its
``annotation.added`` events and its ``output_text.done`` (a ``refusal`` part as one refusal
delta), then the item's ``output_item.done``; then the terminal event of its ``status``
(``completed``, ``incomplete``, ``failed``). ``decode.ResponsesDecoder`` reads it as it reads a
stream: text and citations, reasoning (summaries, raw text, ``encrypted_content``), function
and custom tool calls (their arguments whole), provider-run items, phases, refusals, finish
and usage. A response still ``queued`` / ``in_progress`` is not an answer yet:
``StreamTruncatedError``; another status than those is read as ``completed``. An ``error`` object with no
output raises the typed error of the stream's ``error`` event.
"""

from __future__ import annotations

from typing import Any

from ...errors import StreamTruncatedError
from ..whole import ReplayDecoder, sse

__all__ = ["ResponsesWholeDecoder", "whole_body"]

_TERMINAL = {
    "completed": "response.completed",
    "incomplete": "response.incomplete",
    "failed": "response.failed",
    "cancelled": "response.failed",
}


def whole_body(body: dict[str, Any]) -> dict[str, Any]:
    """The streamed request ``body`` as a whole one (``stream: false``)."""
    return {**body, "stream": False}


def _message(index: int, item: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    item_id = item.get("id")
    content = item.get("content")
    for part_index, part in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(part, dict):
            continue
        where = {"output_index": index, "item_id": item_id, "content_index": part_index}
        kind = part.get("type")
        if kind == "output_text" and isinstance(part.get("text"), str):
            text = part["text"]
            out.append(_event("response.output_text.delta", where, delta=text))
            annotations = part.get("annotations")
            for number, note in enumerate(annotations if isinstance(annotations, list) else ()):
                out.append(
                    _event(
                        "response.output_text.annotation.added",
                        where,
                        annotation_index=number,
                        annotation=note,
                    )
                )
            out.append(_event("response.output_text.done", where, text=text))
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            out.append(_event("response.refusal.delta", where, delta=part["refusal"]))
    return out


def _event(kind: str, where: dict[str, Any], **fields: Any) -> tuple[str, str]:
    return sse(kind, {"type": kind, **where, **fields})


class ResponsesWholeDecoder(ReplayDecoder):
    """A whole Responses answer, decoded by the stream decoder (module rules)."""

    def replay(self, body: dict[str, Any]) -> list[Any]:
        output = body.get("output")
        status = str(body.get("status") or "completed")
        if body.get("error") and not output and body.get("object") != "response":
            error = body["error"]
            return [_event("error", {}, **(error if isinstance(error, dict) else {}))]
        if status in ("queued", "in_progress"):
            raise StreamTruncatedError(
                f"the response is {status}, not done: a background response is read when it "
                "is done (or streamed: Client.resume)",
                provider=self.provider,
            )
        items = [item for item in output if isinstance(item, dict)] if output else []
        events = [_event("response.created", {}, response={**body, "output": []})]
        for index, item in enumerate(items):
            where = {"output_index": index}
            if item.get("type") == "message":
                shell = {**item, "content": []}
                events.append(_event("response.output_item.added", where, item=shell))
                events.extend(_message(index, item))
            events.append(_event("response.output_item.done", where, item=item))
        events.append(_event(_TERMINAL.get(status, "response.completed"), {}, response=body))
        return events

"""Partial values in a stream: ``PartialObject`` events and ``ToolCallChunk.partial_arguments``.

Rules:

* ``with_partials`` wraps a stream of normalized events (any provider's, the prompt
  fallback's) and changes nothing else in it: every event passes through in order.
* ``objects=True`` (a ``response_format`` was asked for): the reply text is fed to one
  ``PartialJson``; a ``PartialObject`` follows the ``TextDelta`` that changed the value, and
  one more comes before ``Finish`` when the whole text's value differs from the last one sent.
* ``tool_arguments=True``: each ``ToolCallChunk`` is passed on as a copy with
  ``partial_arguments``, the arguments so far (the latest value parsed; with long arguments it
  may lag some chunks behind). Only ``ToolCallEnd`` carries arguments a tool may run on.
* Cost is linear in the streamed text (``llmbridge.structured.partial_json``); streams asked for neither
  never pass through here.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from ..events import (
    Finish,
    ModelSwitch,
    PartialObject,
    StreamEvent,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
)
from .partial_json import PartialJson

__all__ = ["with_partials"]


async def with_partials(
    events: AsyncIterator[StreamEvent], *, objects: bool, tool_arguments: bool
) -> AsyncGenerator[StreamEvent, None]:
    """``events`` with partial values added (see module docstring)."""
    text = PartialJson() if objects else None
    calls: dict[str, PartialJson] = {}
    try:
        async for event in events:
            if isinstance(event, TextDelta) and text is not None:
                yield event
                if text.feed(event.text):
                    yield PartialObject(text.value)
                continue
            if isinstance(event, ToolCallChunk) and tool_arguments:
                arguments = calls.get(event.id)
                if arguments is None:
                    arguments = calls[event.id] = PartialJson()
                arguments.feed(event.arguments_delta)
                value = arguments.value
                if isinstance(value, dict):  # a copy: the event as decoded stays as it was
                    event = ToolCallChunk(event.id, event.index, event.arguments_delta, value)
            elif isinstance(event, ToolCallEnd):
                calls.pop(event.id, None)
            elif isinstance(event, ModelSwitch):  # a fallback model starts afresh
                text = PartialJson() if objects else None
                calls.clear()
            elif isinstance(event, Finish) and text is not None and text.finish():
                yield PartialObject(text.value)
            yield event
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()

"""AG-UI (``@ag-ui/core`` 1.x, the protocol CopilotKit and other front ends speak): llmbridge
events out as AG-UI events over SSE, a ``RunAgentInput`` in as ``ChatMessage``s.

Rules: ``to_stream(events, thread_id=..., run_id=...)`` yields the SSE body of one run
(``ag_ui_events`` says which event becomes what; docs/ui-streams.md has the table); send it with
``HEADERS``. Closing the iterator early (the browser left) closes ``events``.
``to_messages(run_input)`` reads the run input's ``messages`` (``ag_ui_messages``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from ..messages import ChatMessage
from .ag_ui_events import AgUiEvents
from .ag_ui_messages import messages_of_run_input
from .sse import sse_data
from .walk import Walker, walk

__all__ = ["HEADERS", "to_messages", "to_stream"]

HEADERS: dict[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-accel-buffering": "no",
}
"""The headers to send with the stream (``@ag-ui/client``'s ``HttpAgent`` reads SSE)."""


async def to_stream(
    events: AsyncIterable[Any],
    *,
    thread_id: str,
    run_id: str,
    state: Any = None,
    provider: str | None = None,
) -> AsyncIterator[bytes]:
    """The AG-UI SSE body of one run of ``events`` (what ``client.stream`` or ``client.run``
    yields). ``state``: a first ``STATE_SNAPSHOT`` (yield ``llmbridge.ui.State`` for later ones);
    ``provider``: the provider format of provider-run items whose event does not say."""
    out = AgUiEvents(thread_id=thread_id, run_id=run_id)
    steps = walk(events, walker=Walker(provider=provider))
    try:
        async for op in steps:
            for event in out.events_for(op):
                yield sse_data(event)
                if state is not None and event["type"] == "RUN_STARTED":
                    snapshot = {"type": "STATE_SNAPSHOT", "snapshot": state}
                    yield sse_data({**snapshot, "timestamp": event["timestamp"]})
    finally:
        await steps.aclose()


def to_messages(run_input: Any) -> list[ChatMessage]:
    """The ``ChatMessage``s of an AG-UI ``RunAgentInput`` dict (its ``messages``, in order), tool
    results matched to their calls by id. Malformed input is a ``UsageError`` naming where it was."""
    return messages_of_run_input(run_input)

"""The Vercel AI SDK's UI message stream (``ai`` 7.x, the ``x-vercel-ai-ui-message-stream: v1``
SSE protocol ``useChat`` reads): llmbridge events out, ``useChat`` request bodies in.

Rules: ``to_stream(events)`` yields the SSE body: ``start``, one ``start-step`` / ``finish-step``
per model turn, text and reasoning blocks with ids, tool input start/delta/available, the tool
loop's outputs, sources, files, data parts, ``error`` (an ``LLMBridgeError`` mid-stream),
``finish`` and ``[DONE]`` (see ``ai_sdk_chunks`` and docs/ui-streams.md). Send it with
``HEADERS``. Closing the iterator early (the browser left) closes ``events``.
``to_messages(body)`` reads a ``useChat`` body back into ``ChatMessage``s (``ai_sdk_messages``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from ..messages import ChatMessage
from .ai_sdk_chunks import chunks_for
from .ai_sdk_messages import messages_of_body
from .sse import sse_data
from .walk import Walker, walk

__all__ = ["HEADERS", "to_messages", "to_stream"]

HEADERS: dict[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The headers to send with the stream (the ``ai`` package's ``UI_MESSAGE_STREAM_HEADERS``)."""


async def to_stream(
    events: AsyncIterable[Any], *, provider: str | None = None, message_id: str | None = None
) -> AsyncIterator[bytes]:
    """The UI message stream of ``events`` (what ``client.stream`` or ``client.run`` yields).

    ``provider`` names the provider format of provider-run items whose event does not say
    (so ``to_messages`` can send them back); ``message_id`` is the assistant message's id."""
    walker = Walker(provider=provider, message_id=message_id)
    steps = walk(events, walker=walker)
    try:
        async for op in steps:
            for chunk in chunks_for(op):
                yield sse_data(chunk)
        yield sse_data("[DONE]")
    finally:
        await steps.aclose()


def to_messages(body: Any) -> list[ChatMessage]:
    """The ``ChatMessage``s of a ``useChat`` request body (a dict with ``messages``): UI messages
    with parts (text, files, reasoning, tool invocations with their state and output), tool calls
    and results matched by id. Malformed input is a ``UsageError`` naming where it was."""
    return messages_of_body(body)

"""Starlette / FastAPI responses for the browser streams (extra ``ui``: ``pip install
llmbridge[ui]``).

Rules: ``UIStreamResponse`` is Starlette's ``StreamingResponse`` that always closes its body
iterator, on whichever path the response ends: finished, the client gone (ASGI 2.4 servers raise
from ``send``; older ones are cancelled by the disconnect watcher), or the server shutting down.
Closing the body closes the llmbridge stream under it, so the model's HTTP connection is closed
within the same tick. ``ai_sdk_response`` / ``ag_ui_response`` build one with the protocol's
headers.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Send

from . import ag_ui, ai_sdk
from .walk import CLOSE_TIMEOUT

__all__ = ["UIStreamResponse", "ag_ui_response", "ai_sdk_response"]


class UIStreamResponse(StreamingResponse):
    """A streaming response that closes its body iterator however the response ends."""

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                    await close()


def ai_sdk_response(events: AsyncIterable[Any], **options: Any) -> UIStreamResponse:
    """The AI SDK UI message stream of ``events`` (``ai_sdk.to_stream`` options pass through)."""
    body: AsyncIterator[bytes] = ai_sdk.to_stream(events, **options)
    return UIStreamResponse(body, headers=ai_sdk.HEADERS, media_type="text/event-stream")


def ag_ui_response(
    events: AsyncIterable[Any], *, thread_id: str, run_id: str, **options: Any
) -> UIStreamResponse:
    """The AG-UI event stream of one run of ``events`` (``ag_ui.to_stream`` options pass
    through)."""
    body = ag_ui.to_stream(events, thread_id=thread_id, run_id=run_id, **options)
    return UIStreamResponse(body, headers=ag_ui.HEADERS, media_type="text/event-stream")

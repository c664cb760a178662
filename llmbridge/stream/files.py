"""A JSONL file read line by line through the one attempt loop (a batch's results).

Rules:

* ``download_lines`` reads a JSONL answer (a batch's results) through ``run_attempts`` with
  framing ``jsonl`` (``file_bodies.JsonlBody``): it yields each line's bytes as it comes;
  memory is one piece of body plus a line. After the first
  line nothing is retried (the loop's rule), so no line comes twice.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ..frames import Line
from ..providers.base import HttpRequest, Provider
from ..providers.prepared import Prepared
from .call import CallConfig
from .transport import run_attempts

if TYPE_CHECKING:
    from ..events import StreamEvent

__all__ = ["MAX_DOWNLOAD_BYTES", "download_lines"]

MAX_DOWNLOAD_BYTES = 64 * 1024**3
"""Bytes of one results file read at most (it is read line by line, never held)."""


class _LineDecoder:
    """A results file's lines, handed on as they are (``Line.data``)."""

    def feed_frame(self, frame: Line) -> list[StreamEvent]:
        return cast("list[StreamEvent]", [frame.data])

    def close(self) -> list[StreamEvent]:
        return []

    def held(self) -> list[StreamEvent]:
        return []

    def resume_point(self) -> Any:
        return None


async def download_lines(
    request: HttpRequest, *, provider: Provider, config: CallConfig
) -> AsyncIterator[bytes]:
    """Each line of the JSONL answer to ``request``, as bytes, as the body arrives."""
    prepared = Prepared(http=request, new_decoder=_LineDecoder, framing="jsonl")
    config = replace(config, max_response_bytes=max(config.max_response_bytes, MAX_DOWNLOAD_BYTES))
    lines = run_attempts(prepared, provider=provider, config=config, during="downloading")
    try:
        async for line in lines:
            yield line
    finally:
        await lines.aclose()  # type: ignore[attr-defined]

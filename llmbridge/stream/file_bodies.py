"""Bodies of files: a request body streamed from a file, a JSONL answer read as lines.

Rules:

* ``UploadRequest`` is an ``HttpRequest`` whose body is not JSON but bytes made afresh on every
  attempt by ``content()`` (a file read piece by piece: never held whole in memory);
  ``opening.open_response`` sends ``upload_body()`` as the content.
* ``JsonlBody`` is the reader of framing ``jsonl``: the NDJSON framer over a body of any content
  type (a file download says ``application/octet-stream`` or ``application/binary``). The loop's
  record of its lines is counted and dropped before each next line, never folded into a
  response (lines are not events): a break midway finds nothing to fold.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..frames import Line
from ..providers.base import HttpRequest
from .ndjson import NdjsonBody

if TYPE_CHECKING:
    from .record import Record

__all__ = ["JsonlBody", "UploadRequest"]


async def _nothing() -> AsyncIterator[bytes]:  # pragma: no cover - the default is replaced
    return
    yield b""


@dataclass(slots=True)
class UploadRequest(HttpRequest):
    """A request whose body is streamed from ``content()`` (see the module rules)."""

    content: Callable[[], AsyncIterator[bytes]] = field(default=_nothing, kw_only=True)
    """A fresh iterator of the body's bytes, one per attempt."""
    length: int | None = field(default=None, kw_only=True)

    def upload_body(self) -> AsyncIterator[bytes]:
        return self.content()


class JsonlBody(NdjsonBody):
    """NDJSON lines of any content type, whose record is counted and dropped (module rules)."""

    __slots__ = ("_kept",)

    def __init__(self, response: Any, *, record: Record | None = None, **options: Any) -> None:
        super().__init__(response, record=None, **options)
        self._kept = record

    async def __anext__(self) -> Line:
        kept = self._kept  # the lines the loop kept since the last: counted, dropped
        if kept is not None and kept.recent:
            kept.count += len(kept.recent)
            kept.recent.clear()
        return await super().__anext__()

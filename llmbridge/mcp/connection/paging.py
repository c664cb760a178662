"""Paged MCP listings (``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list``): one loop that follows ``nextCursor`` for all of them.

Rules: a listing follows cursors until a page has none. A cursor that comes back (a server
paging in a circle, such as ``"nextCursor": "again"``) or more than ``MAX_PAGES`` pages is an
``MCPError`` naming the server and the listing, never a hang: what was read so far is dropped.
Only a digest of each cursor is kept, so long cursors cost no memory past their page.
Each page is one request through the connection (its timeout, its error handling).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

from ..content import field_of
from ..errors import MCPError

__all__ = ["MAX_PAGES", "all_pages"]

MAX_PAGES = 10_000
"""Pages one listing may take (and a cursor may not come back): a server paging forever is
an error, not a hang."""

Request = Callable[[str, Callable[[], Awaitable[Any]]], Awaitable[Any]]
"""``MCPConnection._request`` as the loop uses it: what is asked (for errors), the call."""
Page = Callable[[str, "str | None"], Awaitable[Any]]
"""``MCPConnection._page``: one page of a listing, by the SDK's method name and cursor."""


async def all_pages(
    request: Request,
    page: Page,
    *,
    method: str,
    what: str,
    attribute: str,
    server: str | None,
    where: str | None = None,
) -> list[Any]:
    """Every item of a paged listing: ``getattr(page, attribute)`` of each page, in order
    (``method``: the SDK session's method; ``what``: the MCP method, for errors)."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[bytes] = set()  # digests: a server's long cursors are not all kept
    while True:
        answer = await request(what, functools.partial(page, method, cursor))
        items.extend(getattr(answer, attribute, None) or [])
        cursor = field_of(answer, "nextCursor", "next_cursor")
        if not cursor:
            return items
        digest = hashlib.blake2b(str(cursor).encode(), digest_size=16).digest()
        if digest in seen or len(seen) + 1 >= MAX_PAGES:
            error = MCPError(
                f"MCP server {server!r}: {what} did not end after {len(seen) + 1} pages "
                "(a cursor came back, or too many pages)"
            )
            error.server, error.where = server, where
            raise error
        seen.add(digest)

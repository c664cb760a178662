"""The seam every MCP session's JSON-RPC traffic passes: the read/write streams a session speaks
over, which a traffic hook may wrap (to record them) or replace (to replay them, no server).

Rules:

* Every transport (stdio, streamable HTTP, SSE) hands ``connect._session`` an async context
  manager of its ``(read, write)`` streams; before it is entered, ``hooked_streams`` gives the
  innermost ``use_traffic_hook`` hook the server's key (its name, else how errors show it) and
  that context manager, and the session enters what the hook returns. A hook that replaces
  it never enters the transport's: no process starts, no HTTP request is made.
* Hooks are process-wide (a stack), not per task: the servers of an ``MCPServers`` hub start in
  tasks of their own. ``llmbridge.testing.mcp_cassette`` holds the hooks that record and
  replay; nothing here imports it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeVar

__all__ = ["TrafficHook", "hooked_streams", "use_traffic_hook"]

Streams = AbstractAsyncContextManager[Any]
"""An async context manager yielding a session's ``(read, write)`` streams."""


class TrafficHook(Protocol):
    def streams(self, server: str, streams: Streams, scrub: Callable[[str], str]) -> Streams:
        """The streams the session of ``server`` speaks over (``streams``: the transport's;
        ``scrub`` removes the server's secrets from text)."""
        ...


_H = TypeVar("_H", bound=TrafficHook)
_HOOKS: list[TrafficHook] = []


@contextlib.contextmanager
def use_traffic_hook(hook: _H) -> Iterator[_H]:
    """While open, every MCP session connects through ``hook``."""
    _HOOKS.append(hook)
    try:
        yield hook
    finally:
        _HOOKS.remove(hook)


def hooked_streams(server: str, streams: Streams, scrub: Callable[[str], str]) -> Streams:
    """What the session of ``server`` enters: ``streams``, or what the current hook makes."""
    return _HOOKS[-1].streams(server, streams, scrub) if _HOOKS else streams

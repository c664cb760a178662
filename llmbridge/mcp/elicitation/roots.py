"""MCP roots: the directories (or other URIs) the app lets servers work in.

The 2026-07-28 protocol revision marks roots deprecated; servers still ask for them, so they
are supported as the ``mcp`` package does it (its ``list_roots_callback`` and
``send_roots_list_changed``; the SDK's deprecation warning is silenced here).

Rules:

* A root is a filesystem path (made absolute and turned into a ``file://`` URI: ``~``
  expanded, relative to the current directory) or a ``file://`` URI (kept as written; the
  protocol allows no other scheme for roots, so ``https://...`` is a ``UsageError``),
  optionally named: ``"/srv/repo"``, ``"file:///srv/repo"``, ``("/srv/repo",
  "repo")`` or a ``{"uri"|"path": ..., "name": ...}`` dict (the config's form).
* ``MCPRoots`` holds one list and the sessions that read it: a server's ``roots/list`` is
  answered from it, and ``await roots.set([...])`` replaces it and sends
  ``notifications/roots/list_changed`` to every session it serves (a session that is gone is
  skipped). One made with ``parent=`` follows its parent's list and changes (how each server
  of ``connect_mcp_servers`` follows the connect-time roots) until it is ``set`` itself. A connection given no roots does not announce the capability: servers then
  cannot ask.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeAlias
from urllib.parse import urlsplit

from ...errors import UsageError
from ..log_text import MAX_LOG_CHARS, log_text

__all__ = ["MCPRoots", "RootLike", "quiet_deprecations", "root_entries"]

_log = logging.getLogger("llmbridge.mcp")

RootLike: TypeAlias = (
    "str | os.PathLike[str] | tuple[str | os.PathLike[str], str] | Mapping[str, Any]"
)
"""One root as an app or a config writes it (see module rules)."""


@contextlib.contextmanager
def quiet_deprecations() -> Iterator[None]:
    """Silence the SDK's ``MCPDeprecationWarning`` (roots, logging, sampling: deprecated in the
    2026-07-28 revision, still used by servers)."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield


def _uri(value: str | os.PathLike[str]) -> str:
    text = os.fspath(value)
    if not isinstance(text, str) or not text:
        raise UsageError(f"a root is a path or a URI, got {value!r}")
    if not isinstance(value, os.PathLike) and "://" in text and urlsplit(text).scheme:
        if urlsplit(text).scheme != "file":
            raise UsageError(
                f"a root URI must be a file:// URI (the protocol's rule), got {text!r}"
            )
        return text
    return Path(text).expanduser().absolute().as_uri()


def root_entries(roots: Iterable[RootLike]) -> list[tuple[str, str | None]]:
    """``(uri, name)`` per root (see module rules); ``UsageError`` for anything else."""
    if isinstance(roots, (str, os.PathLike, Mapping)):
        roots = [roots]  # one root given alone
    out: list[tuple[str, str | None]] = []
    for root in roots:
        if isinstance(root, Mapping):
            where = root.get("uri", root.get("path"))
            if where is None:
                raise UsageError(f"a root given as an object needs 'uri' or 'path': {root!r}")
            name = root.get("name")
            out.append((_uri(where), None if name is None else str(name)))
        elif isinstance(root, tuple):
            if len(root) != 2:
                raise UsageError(f"a root given as a tuple is (path or URI, name): {root!r}")
            out.append((_uri(root[0]), None if root[1] is None else str(root[1])))
        elif isinstance(root, (str, os.PathLike)):
            out.append((_uri(root), None))
        else:
            raise UsageError(f"a root is a path, a URI, (where, name) or a dict, got {root!r}")
    return out


class MCPRoots:
    """A list of roots shared by the sessions it serves (see module rules). One made with
    ``parent=`` follows that one's list (and its changes) until it is ``set`` itself."""

    def __init__(self, roots: Iterable[RootLike] = (), *, parent: MCPRoots | None = None) -> None:
        self._entries: list[tuple[str, str | None]] | None = (
            None if parent is not None else root_entries(roots)
        )
        self._parent = parent
        self._children: list[MCPRoots] = []
        self._sessions: list[Any] = []
        if parent is not None:
            parent._children.append(self)

    @property
    def entries(self) -> list[tuple[str, str | None]]:
        """``(uri, name)`` per root, in order."""
        if self._entries is None:
            assert self._parent is not None
            return self._parent.entries
        return list(self._entries)

    @property
    def uris(self) -> list[str]:
        return [uri for uri, _ in self.entries]

    @property
    def follows_parent(self) -> bool:
        return self._entries is None

    def __repr__(self) -> str:
        return f"MCPRoots({self.uris!r})"

    def callback(self) -> Callable[[Any], Awaitable[Any]]:
        """The SDK's ``list_roots_callback``: the current list."""
        import mcp.types as types

        async def listing(context: Any) -> Any:
            roots = [types.Root(uri=uri, name=name) for uri, name in self.entries]  # type: ignore[arg-type]
            return types.ListRootsResult(roots=roots)

        return listing

    def serve(self, session: Any) -> Callable[[], None]:
        """Tell ``session`` of later changes; returns the function that stops it."""
        self._sessions.append(session)

        def forget() -> None:
            if session in self._sessions:
                self._sessions.remove(session)

        return forget

    async def set(self, roots: Iterable[RootLike]) -> None:
        """Replace the roots and send ``notifications/roots/list_changed`` to every session
        (also those of the ``MCPRoots`` that follow this one)."""
        self._entries = root_entries(roots)
        await self._changed()

    async def _changed(self) -> None:
        for session in list(self._sessions):
            try:
                with quiet_deprecations():
                    await session.send_roots_list_changed()
            except Exception as exc:  # gone: it will list roots again when it comes back
                why = log_text(exc, limit=MAX_LOG_CHARS)
                _log.debug("roots/list_changed not delivered: %s: %s", type(exc).__name__, why)
        for child in self._children:
            if child.follows_parent:
                await child._changed()

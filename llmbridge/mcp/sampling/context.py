"""What a sampling request's ``includeContext`` adds: this session's exchanges with MCP servers.

Rules:

* ``connect_mcp_servers`` records, per server, what the app got from it: each tool call
  (name, arguments, the result's text, or its error) and each text resource read. Newest kept:
  at most ``MAX_ENTRIES`` entries and ``MAX_CHARS`` characters per server, an entry cut at
  ``MAX_ENTRY_CHARS`` (images and other binaries are named, not copied). The secrets of a
  server's config (its ``${VAR}`` values: keys, tokens) are scrubbed from its entries, so a
  server echoing its own key cannot hand it to another through ``allServers``.
* ``connect_mcp_servers(sampling_context=)`` is what the app grants: ``"thisServer"`` (the
  default: a server is shown what it itself returned, nothing it did not know),
  ``"allServers"`` (other servers' results too: a server may learn what another one said, so
  this is opt-in) or ``"none"``. Any grant but ``"none"`` announces the ``sampling.context``
  capability.
* A request's ``includeContext`` is honoured up to the grant: ``allServers`` under a
  ``thisServer`` grant gets this server's exchanges, ``none`` (or none given) nothing. The
  context becomes one block after the request's system prompt, an exchange per line under each
  server's name (the asking server first), and the approver sees it (``context``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias

import orjson

from ...errors import UsageError

__all__ = ["ContextGrant", "SamplingContext"]

ContextGrant: TypeAlias = Literal["none", "thisServer", "allServers"]
GRANTS: tuple[ContextGrant, ...] = ("none", "thisServer", "allServers")

MAX_ENTRIES = 20
MAX_CHARS = 16_000
MAX_ENTRY_CHARS = 4_000

HEADER = "Context from this session's exchanges with MCP servers (oldest first):"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(content: str | list[Any]) -> str:
    """A result's text; other parts by kind (``[image]``)."""
    if isinstance(content, str):
        return content
    kinds = {"ImagePart": "[image]", "AudioPart": "[audio]", "DocumentPart": "[document]"}
    return "".join(
        getattr(p, "text", None) or kinds.get(type(p).__name__, "[content]") for p in content
    )


class SamplingContext:
    """Each server's recent exchanges, and what sampling requests may see of them."""

    def __init__(self, grant: ContextGrant = "thisServer") -> None:
        if grant not in GRANTS:
            raise UsageError(f"sampling_context must be one of {list(GRANTS)}, not {grant!r}")
        self.grant: ContextGrant = grant
        self._entries: dict[str, deque[str]] = {}

    def __repr__(self) -> str:
        held = {server: len(entries) for server, entries in self._entries.items()}
        return f"SamplingContext(grant={self.grant!r}, entries={held})"

    def _add(self, server: str, line: str, scrub: Callable[[str], str] | None) -> None:
        if self.grant == "none":
            return
        entries = self._entries.setdefault(server, deque(maxlen=MAX_ENTRIES))
        entries.append(_cut(scrub(line) if scrub is not None else line, MAX_ENTRY_CHARS))
        while sum(len(e) for e in entries) > MAX_CHARS:
            entries.popleft()

    def record_call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        result: Any,
        *,
        failed: bool,
        scrub: Callable[[str], str] | None = None,
    ) -> None:
        """A tool call the app made (``result``: its ``ToolOutput``, or the error's text;
        ``scrub``: the server's secrets out)."""
        args = orjson.dumps(dict(arguments), default=str).decode()
        text = result if isinstance(result, str) else _text(getattr(result, "content", ""))
        outcome = f"failed: {text}" if failed else f"returned: {text}"
        self._add(server, f"tool {tool}({args}) {outcome}", scrub)

    def record_resource(
        self, server: str, uri: str, text: str, *, scrub: Callable[[str], str] | None = None
    ) -> None:
        """A resource the app read (its text contents, binaries named)."""
        self._add(server, f"resource {uri}: {text}", scrub)

    def for_request(self, server: str, include: Any) -> str | None:
        """The block ``includeContext`` asks for (``None``: nothing to add)."""
        wanted = include if include in GRANTS else "none"
        if self.grant == "none" or wanted == "none":
            return None
        both_all = wanted == "allServers" and self.grant == "allServers"
        names = [server, *(n for n in self._entries if n != server)] if both_all else [server]
        blocks = [
            f"[{name}]\n" + "\n".join(self._entries[name])
            for name in names
            if self._entries.get(name)
        ]
        return HEADER + "\n" + "\n".join(blocks) if blocks else None

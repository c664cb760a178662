"""Tool names for many MCP servers: unique, predictable, and accepted by every provider.

Rules: the strictest common rule is OpenAI's ``^[a-zA-Z0-9_-]{1,64}$`` plus Gemini's "starts with
a letter or an underscore" (Anthropic takes up to 128 of the same characters). A tool keeps its
own name when it fits and no other server has a tool of that name; otherwise other characters
become ``_``, a leading digit or ``-`` gets a ``_`` in front, and every tool whose name is
shared by several servers becomes ``<server>__<tool>`` (all of them, whatever the start order:
the result depends only on the config and the tool lists); so does a tool whose name an app
tool in the same registry already has (``reserved``). A name longer than 64 is cut and
ends with 8 hex digits of its hash. A clash left after that (``a__b`` vs server ``a``'s ``b``)
gets ``_2``, ``_3``… in config order.

Names are stable: ``keep`` holds the names given before (a refresh after ``tools/list_changed``,
a restart); a tool still listed keeps its name, so nothing is renamed mid-conversation, and
only the newcomers are named by the rules above, taking what is left: a newcomer whose name a
kept tool (or another server's tool) already has gets the ``<server>__<tool>`` form.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

__all__ = ["MAX_TOOL_NAME", "assign_tool_names", "safe_tool_name"]

MAX_TOOL_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def _fit(name: str) -> str:
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


def safe_tool_name(name: str) -> str:
    """``name`` within every provider's rules (unchanged when it already is)."""
    safe = _BAD.sub("_", name) or "_"
    if not (safe[0].isalpha() or safe[0] == "_"):
        safe = f"_{safe}"
    return _fit(safe)


def assign_tool_names(
    tools: Mapping[str, Sequence[str]],
    *,
    reserved: Collection[str] = (),
    keep: Mapping[tuple[str, str], str] | None = None,
) -> dict[tuple[str, str], str]:
    """``{(server, tool): name}`` for the tools of each server, in config order; names in
    ``reserved`` (the app's own tools) are not given out; ``keep``: names given before, kept
    by the tools still listed."""
    counts = Counter(safe_tool_name(t) for names in tools.values() for t in set(names))
    counts.update(set(reserved))
    out: dict[tuple[str, str], str] = {}
    taken: set[str] = set(reserved)
    for server, names in tools.items():
        for tool in names:
            kept = (keep or {}).get((server, tool))
            if kept is not None and kept not in taken:
                out[(server, tool)] = kept
                taken.add(kept)
    for server, names in tools.items():
        for tool in names:
            if (server, tool) in out:
                continue
            base = safe_tool_name(tool)
            if counts[base] > 1:
                base = _fit(f"{_BAD.sub('_', server)}__{_BAD.sub('_', tool)}")
                base = safe_tool_name(base)
            name, n = base, 2
            while name in taken:
                name = _fit(f"{base}_{n}")
                n += 1
            taken.add(name)
            out[(server, tool)] = name
    return out

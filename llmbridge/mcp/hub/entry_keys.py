"""Reading an ``mcpServers`` entry's keys: typos, the transport a URL implies, what an error
points at.

Rules: ``near_miss`` finds the first key that is not known and is close to a known one
(``difflib``, cutoff 0.75: ``"arg"`` → ``"args"``, ``"comand"`` → ``"command"``); keys far
from every field (other clients' settings: ``autoApprove``, ``description``, ``envFile``) are
no typo and are left alone (the config module raises the ``MCPConfigError``). ``kind_of_url``:
``sse`` for a URL whose path ends in ``/sse`` (hosted servers' convention), else ``http``.
``value_at``: the value an error's location points at in the entry as written.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["kind_of_url", "near_miss", "value_at"]


def near_miss(data: Mapping[str, Any], known: Iterable[str]) -> tuple[str, str] | None:
    """The first key of ``data`` that is nearly one of ``known``, and that one."""
    fields = sorted(known)
    for key in data:
        if not isinstance(key, str) or key in fields:
            continue
        near = difflib.get_close_matches(key.lower(), fields, n=1, cutoff=0.75)
        if near:
            return key, near[0]
    return None


def kind_of_url(url: Any) -> str:
    """``sse`` for a URL whose path ends in ``/sse`` (the convention), else ``http``."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path if isinstance(url, str) else ""
    return "sse" if path.rstrip("/").endswith("/sse") else "http"


def value_at(value: Any, loc: tuple[int | str, ...]) -> Any:
    """What ``loc`` points at in the entry as written."""
    for key in loc:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return "?"
    return value

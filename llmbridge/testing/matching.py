"""Matching a replayed request against the recorded one: fields a test says may differ, and a
diff that names the fields that do.

Rules:

* ``match_ignore`` is a list of dotted paths into a request's JSON body (an MCP request's
  ``params``), VCR-style: ``"metadata.id"``, ``"messages.*.content"``; ``*`` stands for any one
  key or list index, ``**`` for any run of them (``"**.time"``: a ``time`` key anywhere). A field
  a path names is left out of both sides before they are compared (a list item is blanked, so
  the items after it keep their places): it may differ, or be missing from either.
* ``field_diff`` names each difference by its path (``messages.1.content: sent '...', recorded
  '...'``). Lists of named things (tools: ``name``, ``function.name``, ``toolSpec.name``) are
  compared by name when the names differ: ``tools: tool 'get_time' sent, not recorded``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["IGNORED", "MAX_DIFF_LINES", "field_diff", "without_ignored"]

IGNORED = "<ignored by match_ignore>"
"""What a list item a ``match_ignore`` path names becomes on both sides."""
MAX_DIFF_LINES = 20
_Path = tuple[str, ...]


def _split(patterns: Iterable[str]) -> list[_Path]:
    return [tuple(p.split(".")) for p in patterns if p]


def without_ignored(data: Any, patterns: Sequence[str]) -> Any:
    """``data`` with the fields ``patterns`` name left out (see the module rules)."""
    paths = _split(patterns)
    return _drop(data, paths) if paths else data


def _children(data: Any) -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [(str(k), v) for k, v in data.items()]
    if isinstance(data, list):
        return [(str(i), v) for i, v in enumerate(data)]
    return []


def _advance(path: _Path, key: str) -> tuple[bool, list[_Path]]:
    """Whether ``path`` ends at child ``key``, and what is left of it below that child."""
    head, rest = path[0], path[1:]
    if head == "**":  # spans this key (and goes on below it), or stands for no key at all
        ends, rests = _advance(rest, key) if rest else (False, [])
        return ends, [path, *rests]
    if head in ("*", key):
        return not rest, [rest] if rest else []
    return False, []


def _drop(data: Any, paths: list[_Path]) -> Any:
    """``data`` without what ``paths`` name (each path relative to ``data``)."""
    kept: list[Any] = []
    for key, value in _children(data):
        gone, below = False, list[_Path]()
        for path in paths:
            ends, rests = _advance(path, key)
            gone, below = gone or ends, below + rests
        kept.append(_GONE if gone else _drop(value, below) if below else value)
    if isinstance(data, dict):
        return {k: v for k, v in zip(data, kept, strict=True) if v is not _GONE}
    if isinstance(data, list):
        return [IGNORED if v is _GONE else v for v in kept]
    return data


_GONE = object()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _name_of(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    for holder in (item, item.get("function"), item.get("toolSpec")):
        if isinstance(holder, dict) and isinstance(holder.get("name"), str):
            return str(holder["name"])
    return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def field_diff(recorded: Any, sent: Any, path: str = "") -> list[str]:
    """Each difference between ``recorded`` and ``sent``, named by its path (module rules)."""
    lines: list[str] = []
    _diff(recorded, sent, path, lines)
    if len(lines) > MAX_DIFF_LINES:
        lines[MAX_DIFF_LINES:] = [f"... and {len(lines) - MAX_DIFF_LINES} more differences"]
    return lines


def _diff(recorded: Any, sent: Any, path: str, out: list[str]) -> None:
    where = path or "(the whole body)"
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in [*recorded, *(k for k in sent if k not in recorded)]:
            here = _join(path, str(key))
            if key not in sent:
                out.append(f"{here}: recorded {_short(recorded[key])}, not sent")
            elif key not in recorded:
                out.append(f"{here}: sent {_short(sent[key])}, not recorded")
            else:
                _diff(recorded[key], sent[key], here, out)
    elif isinstance(recorded, list) and isinstance(sent, list):
        _list_diff(recorded, sent, path, out)
    elif recorded != sent:
        out.append(f"{where}: sent {_short(sent)}, recorded {_short(recorded)}")


def _list_diff(recorded: list[Any], sent: list[Any], path: str, out: list[str]) -> None:
    names_r, names_s = [_name_of(i) for i in recorded], [_name_of(i) for i in sent]
    named = None not in names_r and None not in names_s and (recorded or sent)
    if named and names_r != names_s:
        what = "tool" if path.rsplit(".", 1)[-1] in ("tools", "functionDeclarations") else "item"
        by_name = dict(zip(names_r, recorded, strict=True))
        for name, item in zip(names_s, sent, strict=True):
            if name not in by_name:
                out.append(f"{path}: {what} {name!r} sent, not recorded")
            else:
                _diff(by_name[name], item, f"{path}[{name}]", out)
        out.extend(
            f"{path}: {what} {name!r} recorded, not sent" for name in names_r if name not in names_s
        )
        if sorted(map(str, names_r)) == sorted(map(str, names_s)):
            out.append(f"{path}: the same {what}s in another order")
        return
    for i, (r, s) in enumerate(zip(recorded, sent, strict=False)):
        _diff(r, s, _join(path, str(i)), out)
    for i in range(len(sent), len(recorded)):
        out.append(f"{_join(path, str(i))}: recorded {_short(recorded[i])}, not sent")
    for i in range(len(recorded), len(sent)):
        out.append(f"{_join(path, str(i))}: sent {_short(sent[i])}, not recorded")

"""Read a function's docstring: its description and the text of each parameter.

Rules: three styles are understood, in one pass over the lines, without dependencies:

* Google: an ``Args:`` / ``Arguments:`` / ``Parameters:`` / ``Params:`` section of
  ``name (type): text`` entries, continuation lines indented deeper;
* NumPy: a ``Parameters`` header underlined with dashes, then ``name : type`` lines with the
  text indented below;
* reST / Sphinx: ``:param name: text`` or ``:param type name: text`` fields.

The description is the text before the first section or field (paragraphs kept, other
sections such as ``Returns`` / ``Raises`` / ``Examples`` dropped). Unknown layouts give the
whole docstring as description and no parameter texts, never an error.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["ParsedDocstring", "parse_docstring"]

_GOOGLE_PARAMS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
_GOOGLE_SECTION = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_RULE = re.compile(r"^-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?::.*)?$")
_REST_FIELD = re.compile(r"^:([A-Za-z]+)(?:\s+([^:]*?))?:\s*(.*)$")


@dataclass(slots=True)
class ParsedDocstring:
    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a docstring into its description and per-parameter texts."""
    if not doc:
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    out = ParsedDocstring()
    description: list[str] = []
    i, n = 0, len(lines)
    in_description = True
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if i + 1 < n and stripped and _NUMPY_RULE.match(lines[i + 1].strip()):
            in_description = False
            i = _numpy_section(lines, i + 2, stripped.lower(), out)
            continue
        google = _GOOGLE_SECTION.match(line)
        if google and not line.startswith(" "):
            in_description = False
            i = _google_section(lines, i + 1, google.group(1).strip().lower(), out)
            continue
        if stripped.startswith(":") and _REST_FIELD.match(stripped):
            in_description = False
            i = _rest_field(lines, i, out)
            continue
        if in_description:
            description.append(line)
        i += 1
    out.description = "\n".join(description).strip()
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip()).strip()


def _google_section(lines: list[str], i: int, title: str, out: ParsedDocstring) -> int:
    """Read an indented Google section starting at ``lines[i]``; return the next index."""
    base: int | None = None
    name: str | None = None
    text: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) == 0:
            break
        if line.strip():
            base = _indent(line) if base is None else base
            entry = _GOOGLE_ENTRY.match(line.strip()) if _indent(line) == base else None
            if entry:
                if name is not None and title in _GOOGLE_PARAMS:
                    out.params[name] = _join(text)
                name, text = entry.group(1), [entry.group(2)]
            else:
                text.append(line)
        i += 1
    if name is not None and title in _GOOGLE_PARAMS:
        out.params[name] = _join(text)
    return i


def _numpy_section(lines: list[str], i: int, title: str, out: ParsedDocstring) -> int:
    """Read a NumPy section body starting at ``lines[i]`` (after the dashes)."""
    wanted = title in ("parameters", "other parameters", "keyword arguments")
    name: str | None = None
    text: list[str] = []
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and _NUMPY_RULE.match(lines[i + 1].strip()):
            break
        if line.strip() and _indent(line) == 0:
            entry = _NUMPY_ENTRY.match(line.strip())
            if name is not None and wanted:
                out.params[name] = _join(text)
            name, text = (entry.group(1) if entry else None), []
        elif line.strip():
            text.append(line)
        i += 1
    if name is not None and wanted:
        out.params[name] = _join(text)
    return i


def _rest_field(lines: list[str], i: int, out: ParsedDocstring) -> int:
    """Read one ``:field ...: text`` entry with its indented continuation lines."""
    match = _REST_FIELD.match(lines[i].strip())
    assert match is not None
    kind, arg, first = match.group(1), match.group(2) or "", match.group(3)
    text = [first]
    i += 1
    while i < len(lines) and lines[i].strip() and _indent(lines[i]) > 0:
        text.append(lines[i])
        i += 1
    if kind in ("param", "parameter", "arg", "argument", "key", "keyword") and arg.split():
        out.params[arg.split()[-1].lstrip("*")] = _join(text)
    return i

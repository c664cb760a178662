"""Turn a pydantic ``ValidationError`` into a ``ToolArgumentsError`` the model can act on.

Rules: one line per problem, ``path: message (got value)``, paths written as the model wrote
the arguments (``items[2].name``), values shortened; the last line asks for a corrected call.
The message is fed back to the model, so it is bounded whatever the schema or the arguments:
each line at most ``MAX_LINE`` characters (pydantic lists every allowed value of an enum in
its message: 100,000 values made a 989 KB message), at most ``MAX_PROBLEMS`` lines, then a
count of the rest.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..errors import ToolArgumentsError

__all__ = [
    "MAX_LINE",
    "MAX_PROBLEMS",
    "arguments_error",
    "format_location",
    "not_an_object",
    "too_deep",
]

MAX_LINE = 300
"""Characters of one problem's line (path, message and value)."""
MAX_PROBLEMS = 20
"""Problems listed one per line; more are counted."""
_MAX_VALUE = 80
_NO_VALUE = {"missing", "extra_forbidden_root"}


def format_location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(arguments)"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short(value: Any) -> str:
    return _cut(repr(value), _MAX_VALUE)


def arguments_error(tool_name: str, exc: ValidationError) -> ToolArgumentsError:
    lines = [f"Invalid arguments for tool {_cut(tool_name, 80)!r}:"]
    errors = exc.errors(include_url=False)
    for err in errors[:MAX_PROBLEMS]:
        where = _cut(format_location(tuple(err["loc"])), 120)
        value = ""
        if err["type"] not in _NO_VALUE and err["loc"]:
            value = f" (got {_short(err.get('input'))})"
        room = MAX_LINE - len(where) - len(value) - 4
        lines.append(f"- {where}: {_cut(str(err['msg']), max(room, 40))}{value}")
    if len(errors) > MAX_PROBLEMS:
        lines.append(f"- ... and {len(errors) - MAX_PROBLEMS} more problems")
    lines.append("Call the tool again with corrected arguments.")
    return ToolArgumentsError("\n".join(lines), tool_name=tool_name)


def not_an_object(tool_name: str, arguments: Any) -> ToolArgumentsError:
    return ToolArgumentsError(
        f"Invalid arguments for tool {tool_name!r}: expected a JSON object, got {_short(arguments)}."
        "\nCall the tool again with corrected arguments.",
        tool_name=tool_name,
    )


def too_deep(tool_name: str, limit: int) -> ToolArgumentsError:
    return ToolArgumentsError(
        f"Invalid arguments for tool {tool_name!r}: objects and arrays nest deeper than {limit} "
        "levels.\nCall the tool again with corrected arguments.",
        tool_name=tool_name,
    )

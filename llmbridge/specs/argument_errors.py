"""Turn a pydantic ``ValidationError`` into a ``ToolArgumentsError`` the model can act on.

Rules: one line per problem, ``path: message (got value)``, paths written as the model wrote
the arguments (``items[2].name``), values shortened; the last line asks for a corrected call.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..errors import ToolArgumentsError

__all__ = ["arguments_error", "format_location", "not_an_object"]

_MAX_VALUE = 80
_NO_VALUE = {"missing", "extra_forbidden_root"}


def format_location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(arguments)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def arguments_error(tool_name: str, exc: ValidationError) -> ToolArgumentsError:
    lines = [f"Invalid arguments for tool {tool_name!r}:"]
    for err in exc.errors(include_url=False):
        line = f"- {format_location(tuple(err['loc']))}: {err['msg']}"
        if err["type"] not in _NO_VALUE and err["loc"]:
            line += f" (got {_short(err.get('input'))})"
        lines.append(line)
    lines.append("Call the tool again with corrected arguments.")
    return ToolArgumentsError("\n".join(lines), tool_name=tool_name)


def not_an_object(tool_name: str, arguments: Any) -> ToolArgumentsError:
    return ToolArgumentsError(
        f"Invalid arguments for tool {tool_name!r}: expected a JSON object, got {_short(arguments)}."
        "\nCall the tool again with corrected arguments.",
        tool_name=tool_name,
    )

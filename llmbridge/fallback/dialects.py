"""Tool-call dialects: the tag a model wraps its calls in and the JSON body inside it.

Rules:

* A dialect is data, not code: a tag name (``function_call`` gives ``<function_call>`` and
  ``</function_call>``), the JSON keys of the body (``name`` plus the accepted spellings of the
  arguments key), the tag tool results are wrapped in when history is rewritten, and the style
  the instructions list tools in.
* Tag names are ``[A-Za-z][A-Za-z0-9_.:-]*``: the only ``<`` of a tag is its first character,
  which the streaming parser relies on (a failed tag prefix never hides another tag start).
* Shipped: ``FUNCTION_CALL`` (``<function_call>{"name": ..., "arguments": {...}}</function_call>``,
  the default) and ``TOOL_CALL`` (the ``<tool_call>`` JSON format of Hermes / Qwen chat
  templates, results in ``<tool_response>``). ``KNOWN_DIALECTS`` is what rescue mode looks for.
* ``render_call`` writes one call the way a dialect's parser reads it (used for history and the
  instructions' example), deterministically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..errors import UsageError

__all__ = ["FUNCTION_CALL", "KNOWN_DIALECTS", "TOOL_CALL", "Dialect", "render_call"]

_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*\Z")


@dataclass(frozen=True, slots=True)
class Dialect:
    """How calls are written in text: ``<tag>{"name": ..., "arguments": {...}}</tag>``."""

    tag: str
    """Tag name of a call, without brackets."""
    result_tag: str
    """Tag name tool results are wrapped in when history is rewritten."""
    name_key: str = "name"
    """Body key holding the tool name."""
    arguments_keys: tuple[str, ...] = ("arguments", "parameters")
    """Body keys accepted for the arguments (the first is the one instructions ask for)."""
    tools_style: Literal["markdown", "json_lines"] = "markdown"
    """How instructions list tools: markdown sections, or Hermes-style JSON inside ``<tools>``."""

    def __post_init__(self) -> None:
        for tag in (self.tag, self.result_tag):
            if not _TAG_NAME.match(tag):
                raise UsageError(f"invalid tag name {tag!r}: use [A-Za-z][A-Za-z0-9_.:-]*")
        if not self.arguments_keys:
            raise UsageError("a dialect needs at least one arguments key")

    @property
    def open_tag(self) -> str:
        return f"<{self.tag}>"

    @property
    def close_tag(self) -> str:
        return f"</{self.tag}>"


FUNCTION_CALL = Dialect(tag="function_call", result_tag="function_result")
TOOL_CALL = Dialect(tag="tool_call", result_tag="tool_response", tools_style="json_lines")
KNOWN_DIALECTS: tuple[Dialect, ...] = (FUNCTION_CALL, TOOL_CALL)


def render_call(
    *,
    name: str,
    arguments: dict[str, Any] | None = None,
    raw_arguments: str | None = None,
    dialect: Dialect,
) -> str:
    """One call as the model is asked to write it. ``raw_arguments`` (JSON text) wins if given."""
    args = raw_arguments if raw_arguments else orjson.dumps(arguments or {}).decode()
    name_key = orjson.dumps(dialect.name_key).decode()
    args_key = orjson.dumps(dialect.arguments_keys[0]).decode()
    body = f"{{{name_key}: {orjson.dumps(name).decode()}, {args_key}: {args}}}"
    return f"{dialect.open_tag}{body}{dialect.close_tag}"

"""The system-prompt instructions that teach a model without native tools to call ours.

Rules:

* Deterministic and readable: the same tools, choice and dialect always render the same text.
  Tools keep the caller's order; schemas are JSON with their keys in the caller's order.
* The text states the calling format (``render_call`` of the dialect, so the parser reads
  exactly what is asked for), that several calls may follow each other, that the model stops
  after calling and waits, and how results come back (``<function_result name=.. id=..>``).
* ``tool_choice`` is honoured through the text: ``required`` (call at least one tool),
  a named tool (call exactly that one), ``none`` (answer without calling), ``auto`` (the model
  decides). ``parallel_tool_calls=False`` asks for at most one call.
* ``merge_system`` puts the instructions after the caller's own system prompt, in the first
  system message (a new one is created when there is none); nothing is mutated.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from ..messages import ChatMessage
from ..parts import ContentPart, TextPart
from ..request import ToolChoice
from ..tool_spec import ToolSpec
from .dialects import Dialect, render_call

__all__ = ["instructions_size", "merge_system", "render_instructions"]


_META = frozenset({"$schema", "$id", "$comment"})


def _parameters(spec: ToolSpec) -> dict[str, object]:
    """The schema without meta keywords (``$schema`` alone is 50 characters per MCP tool)."""
    return {k: v for k, v in spec.parameters.items() if k not in _META}


def _schema(spec: ToolSpec) -> str:
    """Compact JSON: small models have small contexts (the 13 tools of MCP's
    server-everything take about 4,600 characters in all)."""
    return orjson.dumps(_parameters(spec)).decode()


def _markdown_tools(tools: Sequence[ToolSpec]) -> str:
    sections = []
    for spec in tools:
        lines = [f"## {spec.name}"]
        if spec.description.strip():
            lines.append(spec.description.strip())
        lines.append(f"Arguments (JSON schema): {_schema(spec)}")
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def _json_lines_tools(tools: Sequence[ToolSpec]) -> str:
    lines = [
        orjson.dumps(
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": _parameters(spec),
                },
            }
        ).decode()
        for spec in tools
    ]
    return "<tools>\n" + "\n".join(lines) + "\n</tools>"


def _choice_rule(choice: ToolChoice | None, parallel: bool | None) -> str:
    mode = choice.mode if choice is not None else "auto"
    if mode == "none":
        return "Do not call any tool in this response: answer in plain text."
    if mode == "required":
        rule = "You must call at least one tool in this response."
    elif mode == "tool":
        assert choice is not None
        rule = f"You must call the tool {choice.name} in this response, and no other tool."
    else:
        rule = "Call a tool only when it helps; otherwise answer in plain text."
    if parallel is False:
        rule += " Call at most one tool per response."
    return rule


def render_instructions(
    tools: Sequence[ToolSpec],
    *,
    dialect: Dialect,
    tool_choice: ToolChoice | None = None,
    parallel_tool_calls: bool | None = None,
) -> str:
    """The instructions text for ``tools`` (empty string when there are no tools)."""
    if not tools:
        return ""
    listing = (
        _json_lines_tools(tools) if dialect.tools_style == "json_lines" else _markdown_tools(tools)
    )
    example = render_call(name="tool_name", raw_arguments='{"argument": "value"}', dialect=dialect)
    result = f'<{dialect.result_tag} name="tool_name" id="call_id">...</{dialect.result_tag}>'
    parts = [
        "# Tools you can call",
        listing,
        "# How to call a tool",
        f"Write exactly this, the arguments a JSON object matching the schema:\n{example}",
        "\n".join(
            [
                "- Several calls may follow each other.",
                f"- After your last call, stop and wait: results come back as {result}.",
                "- Never write results yourself; call only the tools above.",
                f"- {_choice_rule(tool_choice, parallel_tool_calls)}",
            ]
        ),
    ]
    return "\n\n".join(parts)


def instructions_size(
    tools: Sequence[ToolSpec], *, dialect: Dialect, tool_choice: ToolChoice | None = None
) -> tuple[int, dict[str, int]]:
    """Characters of the instructions: the fixed part, and what each tool adds."""
    total = len(render_instructions(tools, dialect=dialect, tool_choice=tool_choice))
    listing = _json_lines_tools if dialect.tools_style == "json_lines" else _markdown_tools
    per_tool = {spec.name: len(listing([spec])) + 2 for spec in tools}
    return total - len(listing(tools)), per_tool


def merge_system(messages: Sequence[ChatMessage], instructions: str) -> list[ChatMessage]:
    """``messages`` with ``instructions`` appended to the first system message (or a new one)."""
    out = list(messages)
    if not instructions:
        return out
    for i, message in enumerate(out):
        if message.role == "system":
            sep = "\n\n" if message.text.strip() else ""
            content: list[ContentPart] = [*message.content, TextPart(text=sep + instructions)]
            out[i] = ChatMessage(role="system", content=content)
            return out
    return [ChatMessage.system(instructions), *out]

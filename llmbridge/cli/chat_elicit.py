"""``llmbridge chat --mcp``: asking the user in the terminal when an MCP server elicits.

Rules:

* Only on a terminal (stdin a TTY): with piped input there is nobody to ask, so
  ``elicit=False``: servers are not offered elicitation.
* URL mode prints the server's message and the URL (never opened for the user) and asks
  ``Open it and continue? [y/N/c]``: ``y`` accepts, ``n`` or nothing declines, ``c`` cancels.
* Form mode prints the message, then asks each field in the server's order, showing its title,
  type, whether it is required, its choices (by value or by number) and its default. Answers
  are typed as the schema says (integers, numbers, ``y``/``n`` for booleans, comma-separated
  choices for multi-select) and checked one by one (``validate_content``): a wrong answer is
  said and the field asked again. An empty answer skips an optional field (or takes its
  default). ``!decline`` declines the whole form, ``!cancel`` or end of input (Ctrl-D)
  cancels it.
* Prompts go to stderr, so stdout keeps only the chat. Everything the server wrote (message,
  titles, descriptions, choices) is shown inert (``llmbridge.terminal.terminal_text``) and the URL on one
  line with every control character escaped (``llmbridge.terminal.terminal_url``): ``\r\x1b[2K`` cannot
  show another address over the real one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from ..mcp.elicitation.elicit import (
    ElicitationAnswer,
    ElicitationContentError,
    ElicitationRequest,
    validate_content,
)
from ..terminal import terminal_text, terminal_url

__all__ = ["terminal_elicitor"]

Ask = Callable[[str], str]


class _Stop(Exception):
    def __init__(self, action: str) -> None:
        self.action = action


def _choices(prop: Mapping[str, Any]) -> list[str]:
    if "enum" in prop:
        return [str(v) for v in prop["enum"]]
    options = prop.get("oneOf") or prop.get("anyOf") or []
    return [str(o["const"]) for o in options if isinstance(o, Mapping) and "const" in o]


def _label(name: str, prop: Mapping[str, Any], required: bool) -> str:
    kind = str(prop.get("type") or "string")
    items = prop.get("items") if isinstance(prop.get("items"), Mapping) else None
    choices = _choices(items) if kind == "array" and items is not None else _choices(prop)
    bits = [kind if kind != "array" else "several, comma-separated"]
    bits.append("required" if required else "optional")
    if prop.get("format"):
        bits.append(str(prop["format"]))
    if choices:
        bits.append("one of " + ", ".join(f"{i}={c}" for i, c in enumerate(choices, 1)))
    if "default" in prop:
        bits.append(f"default {prop['default']!r}")
    title = prop.get("title") or name
    about = f" — {prop['description']}" if prop.get("description") else ""
    return terminal_text(f"{title}{about} ({'; '.join(bits)}): ".replace("\n", " "))


def _typed(text: str, prop: Mapping[str, Any]) -> Any:
    kind = prop.get("type")
    if kind == "boolean":
        low = text.lower()
        if low in ("y", "yes", "true", "1"):
            return True
        if low in ("n", "no", "false", "0"):
            return False
        return text
    if kind == "array":
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        return [_by_number(part.strip(), _choices(items or {})) for part in text.split(",")]
    return _by_number(text, _choices(prop))


def _by_number(text: str, choices: list[str]) -> str:
    if choices and text.isdigit() and text not in choices and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    return text


def _read(ask: Ask, prompt: str) -> str:
    try:
        text = ask(prompt).strip()
    except EOFError:
        raise _Stop("cancel") from None
    if text in ("!cancel", "!decline"):
        raise _Stop(text[1:])
    return text


def _field(ask: Ask, out: TextIO, name: str, prop: Mapping[str, Any], required: bool) -> Any:
    while True:
        text = _read(ask, _label(name, prop, required))
        if not text:
            if "default" in prop:
                return prop["default"]
            if not required:
                return None
            out.write("  an answer is required (!decline or !cancel to stop)\n")
            continue
        one = {"type": "object", "properties": {name: prop}, "required": [name]}
        try:
            return validate_content(one, {name: _typed(text, prop)})[name]
        except ElicitationContentError as exc:
            out.write("  " + terminal_text("; ".join(exc.problems)) + "\n")


def _form(ask: Ask, out: TextIO, request: ElicitationRequest) -> ElicitationAnswer:
    required = set(request.required)
    content: dict[str, Any] = {}
    for name, prop in request.fields.items():
        value = _field(ask, out, name, prop if isinstance(prop, Mapping) else {}, name in required)
        if value is not None:
            content[name] = value
    return ElicitationAnswer("accept", content)


def terminal_elicitor(
    *, ask: Ask = input, out: TextIO | None = None
) -> Callable[[ElicitationRequest], ElicitationAnswer]:
    """An ``elicit=`` callback asking in the terminal (``ask``: how a line is read)."""

    def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        stream = out or sys.stderr
        who = f"MCP server {request.server!r}" if request.server else "An MCP server"
        stream.write(terminal_text(f"\n{who} asks: {request.message}") + "\n")
        try:
            if request.mode == "url":
                stream.write(f"  URL: {terminal_url(request.url or '')}\n")
                text = _read(ask, "Open it and continue? [y/N/c] ").lower()
                if text in ("c", "cancel"):
                    return ElicitationAnswer("cancel")
                return ElicitationAnswer("accept" if text in ("y", "yes") else "decline")
            stream.write("  (!decline or !cancel at any prompt to stop)\n")
            return _form(ask, stream, request)
        except _Stop as stop:
            return ElicitationAnswer("cancel" if stop.action == "cancel" else "decline")

    return elicit

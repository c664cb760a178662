"""What the CLI writes to a terminal is inert (issue 49, item 19): hostile text from a model, a
tool, an MCP server, a fixture or an error message cannot write the clipboard (OSC 52), set the
title, plant a hyperlink, clear the screen or show another URL (``\\r\\x1b[2K``): C0 (but
``\\n``, ``\\t``), DEL, C1 and the bidirectional controls are written as escapes, everywhere
(``llmbridge.terminal``: chat, demo, replay, models, elicitation prompts, errors, JSON lines)."""

from __future__ import annotations

import io
import re

import orjson
import pytest

from llmbridge.cli.chat import ChatPrinter
from llmbridge.cli.chat_elicit import terminal_elicitor
from llmbridge.cli.demo import describe_event, merged_lines
from llmbridge.cli.report import report
from llmbridge.errors import ServerError
from llmbridge.events import Finish, ReasoningDelta, StreamStart, TextDelta, ToolCallEnd
from llmbridge.mcp import ElicitationRequest
from llmbridge.messages import ChatMessage
from llmbridge.terminal import json_line, terminal_text, terminal_url
from llmbridge.tools.results import ToolResult

CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: write the clipboard
TITLE = "\x1b]0;pwned\x07"
LINK = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
CLEAR = "\x1b[2J\x1b[H"
C1 = "\x9b31m\x9d0;t\x9c"  # CSI and OSC as single C1 characters
OTHERS = "\r\x00\x08\x7f\u202eevil\u202c\u2066x\u2069"
HOSTILE = f"Hello{CLIPBOARD}{TITLE}{LINK}{CLEAR}{C1}{OTHERS}\tend\nnext line"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OUR_COLORS = re.compile(r"\x1b\[\d+m")


def inert(text: str, *, colors: bool = False) -> bool:
    """No control character but ``\\n`` / ``\\t`` (and, with ``colors``, our own SGR codes)."""
    if colors:
        text = OUR_COLORS.sub("", text)
    return UNSAFE.search(text) is None


def test_terminal_text_escapes_every_control_but_newline_and_tab() -> None:
    shown = terminal_text(HOSTILE)
    assert inert(shown)
    assert "\tend\nnext line" in shown  # layout kept
    assert "\\x1b]52;c;ZXZpbA==\\x07" in shown and "\\x9b" in shown and "\\u202e" in shown
    assert "\\r" in shown and "\\x00" in shown and "\\x7f" in shown
    assert terminal_text("plain — ünïcode ✓ text") == "plain — ünïcode ✓ text"


def test_a_url_is_shown_on_one_line_with_every_control_escaped() -> None:
    url = "https://good.example/login\r\x1b[2Khttps://evil.example/\n\tmore"
    shown = terminal_url(url)
    assert inert(shown) and "\n" not in shown and "\t" not in shown
    assert shown == "https://good.example/login\\r\\x1b[2Khttps://evil.example/\\n\\tmore"


def test_json_lines_are_the_same_value_and_inert() -> None:
    value = {"text": HOSTILE, "name": "t\x85ool"}
    line = json_line(value)
    assert inert(line) and "\n" not in line
    assert orjson.loads(line) == value


def _printed(*events: object, color: bool = False, as_json: bool = False) -> str:
    out = io.StringIO()
    printer = ChatPrinter(out, as_json=as_json, color=color)
    for event in events:
        printer.event(event)  # type: ignore[arg-type]
    printer.end_line()
    return out.getvalue()


def _hostile_turn() -> list[object]:
    result = ToolResult(
        id="c1", name=f"lookup{TITLE}", message=ChatMessage.tool_result("c1", f"found {CLEAR}")
    )
    end = ToolCallEnd(
        id="c1", index=0, name=f"look{CLIPBOARD}up", arguments={"q": LINK},
        raw_arguments=orjson.dumps({"q": LINK}).decode().replace("\\u001b", "\x1b"),
    )  # fmt: skip
    return [
        TextDelta(text=HOSTILE[:20]),
        TextDelta(text=HOSTILE[20:]),  # split anywhere: each piece is escaped on its own
        ReasoningDelta(text=f"thinking{C1}"),
        end,
        result,
        Finish(reason="stop", raw_reason=f"stop{CLEAR}"),
    ]


@pytest.mark.parametrize("color", [False, True], ids=["plain", "colored"])
def test_chat_prints_model_text_tool_names_and_results_inert(color: bool) -> None:
    shown = _printed(*_hostile_turn(), color=color)
    assert inert(shown, colors=color)
    assert "Hello" in shown and "next line" in shown
    assert "look\\x1b]52;c;ZXZpbA==\\x07up" in shown  # the tool name, escaped
    assert "lookup\\x1b]0;pwned\\x07" in shown


def test_chat_json_lines_are_inert() -> None:
    shown = _printed(*_hostile_turn(), as_json=True)
    assert inert(shown)
    rows = [orjson.loads(line) for line in shown.splitlines()]
    assert "".join(r["text"] for r in rows if r["type"] == "text_delta") == HOSTILE


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_error_messages_are_inert(as_json: bool) -> None:
    out = io.StringIO()
    error = ServerError(f"upstream said {HOSTILE}", provider="openai", status=500)
    report(error, as_json=as_json, hint=f"try {TITLE}", out=out)
    assert inert(out.getvalue())
    assert "upstream said Hello" in out.getvalue()


def test_an_elicitation_url_cannot_show_another_address() -> None:
    out = io.StringIO()
    asked: list[str] = []
    elicit = terminal_elicitor(ask=lambda prompt: asked.append(prompt) or "n", out=out)
    request = ElicitationRequest(
        mode="url",
        message=f"Please sign in{CLEAR}",
        server=f"srv{TITLE}",
        url="https://evil.example/\r\x1b[2Khttps://bank.example/login",
    )
    assert elicit(request).action == "decline"
    shown = out.getvalue()
    assert inert(shown) and all(inert(p) for p in asked)
    assert "URL: https://evil.example/\\r\\x1b[2Khttps://bank.example/login\n" in shown


def test_elicitation_form_labels_and_problems_are_inert() -> None:
    out = io.StringIO()
    asked: list[str] = []
    answers = iter(["not a number", "3"])
    elicit = terminal_elicitor(ask=lambda p: asked.append(p) or next(answers), out=out)
    schema = {
        "properties": {
            "n": {"type": "integer", "title": f"Count{CLIPBOARD}", "description": f"d{LINK}"}
        },
        "required": ["n"],
    }
    request = ElicitationRequest(mode="form", message=f"Fill{C1}", schema=schema)
    assert elicit(request).content == {"n": 3}
    assert inert(out.getvalue()) and all(inert(p) for p in asked)


def test_demo_and_replay_lines_are_inert() -> None:
    events = [
        StreamStart(response_id=f"r{TITLE}", model=f"m{CLEAR}"),
        *[e for e in _hostile_turn() if not isinstance(e, ToolResult)],
    ]
    lines = merged_lines(events)  # type: ignore[arg-type]
    described = [describe_event(e) for e in events]  # type: ignore[arg-type]
    assert all(inert(line) and "\n" not in line for line in lines + described)
    assert any("look\\x1b]52;c;ZXZpbA==\\x07up" in line for line in lines)


def test_the_debug_traceback_is_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLMBRIDGE_DEBUG", "1")
    out = io.StringIO()
    try:
        raise ServerError(f"upstream said {HOSTILE}", provider="openai", status=500)
    except ServerError as exc:
        report(exc, out=out)
    assert "Traceback" in out.getvalue() and inert(out.getvalue())

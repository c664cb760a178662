"""MCP elicitation, roots, progress, logs and sampling: the pure parts (form validation, root
URIs, model choice, sampling message conversion, log levels) and the terminal elicitor."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.cli.chat_elicit import terminal_elicitor
from llmbridge.errors import UsageError
from llmbridge.mcp import (
    ElicitationAnswer,
    ElicitationContentError,
    ElicitationRequest,
    MCPConfigError,
    MCPRoots,
    load_mcp_config,
)
from llmbridge.mcp.connection.progress import LEVELS, check_log_level, logging_callback
from llmbridge.mcp.elicitation.elicit import checked_answer, validate_content
from llmbridge.mcp.elicitation.roots import root_entries
from llmbridge.mcp.sampling.messages import reply_result, sampling_messages, sampling_tools
from llmbridge.mcp.sampling.models import choose_model

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date"},
        "size": {"type": "string", "enum": ["S", "M", "L"]},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["wifi", "breakfast"]}},
        "newsletter": {"type": "boolean", "default": False},
    },
    "required": ["name", "age"],
}


def test_form_content_is_validated_and_typed() -> None:
    got = validate_content(FORM, {"name": "Ann", "age": "33", "extras": ["wifi"], "size": "M"})
    assert got == {"name": "Ann", "age": 33, "extras": ["wifi"], "size": "M"}
    assert validate_content(FORM, {"name": "Ann", "age": 1, "when": "2026-11-26"})["when"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"age": 3}, "name"),
        ({"name": "A", "age": 3}, "name"),
        ({"name": "Ann", "age": -1}, "age"),
        ({"name": "Ann", "age": "old"}, "age"),
        ({"name": "Ann", "age": 3, "size": "XL"}, "size"),
        ({"name": "Ann", "age": 3, "extras": ["spa"]}, "extras"),
        ({"name": "Ann", "age": 3, "email": "not-an-email"}, "email: not a valid email"),
        ({"name": "Ann", "age": 3, "when": "tomorrow"}, "when: not a valid date"),
        ({"name": "Ann", "age": 3, "password": "x"}, "password: not a field of this form"),
    ],
)
def test_form_content_that_does_not_match_is_refused(content: Any, problem: str) -> None:
    with pytest.raises(ElicitationContentError) as info:
        validate_content(FORM, content)
    assert any(p.startswith(problem) for p in info.value.problems), info.value.problems
    assert isinstance(info.value, lb.LLMBridgeError)


@pytest.mark.anyio
async def test_an_invalid_answer_goes_back_as_a_decline_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    request = ElicitationRequest("form", "Who?", "hotel", FORM)
    with caplog.at_level(logging.WARNING, logger="llmbridge.mcp"):
        answer = await checked_answer(lambda r: {"name": "Ann", "age": "secret-ish"}, request)
    assert answer == ElicitationAnswer("decline")
    assert "'hotel'" in caplog.text and "age" in caplog.text and "secret-ish" not in caplog.text


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (None, ElicitationAnswer("decline")),
        (False, ElicitationAnswer("decline")),
        (ElicitationAnswer("cancel"), ElicitationAnswer("cancel")),
        ({"name": "Bo", "age": 5}, ElicitationAnswer("accept", {"name": "Bo", "age": 5})),
        (42, ElicitationAnswer("cancel")),  # not an answer: logged, cancelled
    ],
)
async def test_what_a_callback_may_return(reply: Any, expected: ElicitationAnswer) -> None:
    async def elicit(request: ElicitationRequest) -> Any:
        return reply

    request = ElicitationRequest("form", "Who?", None, FORM)
    assert await checked_answer(elicit, request) == expected


@pytest.mark.anyio
async def test_a_url_answer_carries_no_content_and_a_raising_callback_cancels() -> None:
    url = ElicitationRequest("url", "Sign in", "s", url="https://example.com/x")
    assert await checked_answer(lambda r: {"token": "x"}, url) == ElicitationAnswer("accept")

    def broken(request: ElicitationRequest) -> Any:
        raise RuntimeError("app bug")

    assert await checked_answer(broken, url) == ElicitationAnswer("cancel")


def test_roots_are_file_uris(tmp_path: Path) -> None:
    entries = root_entries([str(tmp_path), (tmp_path / "a b", "ab"), {"path": "~", "name": "home"}])
    assert entries[0] == (tmp_path.as_uri(), None)
    assert entries[1] == ((tmp_path / "a b").as_uri(), "ab") and "%20" in entries[1][0]
    assert entries[2] == (Path.home().as_uri(), "home")
    assert root_entries("file:///srv/x") == [("file:///srv/x", None)]
    assert root_entries(["rel"]) == [((Path.cwd() / "rel").as_uri(), None)]
    for bad in (["https://example.com/repo"], [{"name": "x"}], [42], [("a", "b", "c")]):
        with pytest.raises(UsageError):
            root_entries(bad)  # type: ignore[arg-type]


def test_roots_that_follow_a_parent() -> None:
    shared = MCPRoots(["/a"])
    child, own = MCPRoots(parent=shared), MCPRoots(parent=shared)
    assert child.uris == own.uris == ["file:///a"]
    assert child.follows_parent


def test_config_roots_and_log_level_are_checked_while_loading() -> None:
    cfg = {"s": {"command": "x", "roots": ["/srv/${WHERE}", {"uri": "file:///x", "name": "x"}]}}
    loaded = load_mcp_config(cfg, environ={"WHERE": "repo"})["s"]
    assert loaded.roots == ["/srv/repo", {"uri": "file:///x", "name": "x"}]
    with pytest.raises(MCPConfigError, match="roots") as info:
        load_mcp_config({"s": {"command": "x", "roots": ["https://x.org"]}})
    assert info.value.field == "roots"
    with pytest.raises(MCPConfigError, match="log_level"):
        load_mcp_config({"s": {"command": "x", "log_level": "loud"}})
    assert load_mcp_config({"s": {"url": "http://h/mcp", "log_level": "notice"}})["s"].log_level


MODELS = ["openai:small-fast", "openai:medium-model", "anthropic:claude-3-sonnet-20240229"]


@pytest.mark.parametrize(
    ("preferences", "model", "why"),
    [
        (None, "default:x", "default"),
        ({"hints": [{"name": "claude-3-sonnet"}]}, MODELS[2], "hint 'claude-3-sonnet'"),
        ({"hints": [{"name": "gpt-9"}, {"name": "MEDIUM"}]}, MODELS[1], "hint 'medium'"),
        ({"intelligencePriority": 1.0}, MODELS[2], "priorities"),
        ({"costPriority": 1.0, "intelligencePriority": 1.0}, MODELS[1], "priorities"),
        ({"speedPriority": 0.9, "intelligencePriority": 0.1}, MODELS[0], "priorities"),
        ({"hints": [{"name": "nope"}], "costPriority": 0.8}, MODELS[0], "priorities"),
        ({"hints": [{"name": "nope"}]}, "default:x", "default"),
    ],
)
def test_model_preferences_pick_from_the_apps_list(preferences: Any, model: str, why: str) -> None:
    assert choose_model(preferences, models=MODELS, default="default:x") == (model, why)


def test_without_a_list_the_default_answers_and_without_a_default_the_first() -> None:
    assert choose_model({"intelligencePriority": 1}, default="d:x") == ("d:x", "default")
    assert choose_model(None, models=MODELS) == (MODELS[0], "default")


def test_sampling_messages_with_tool_uses_and_results() -> None:
    params = {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "define hola"}},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "looking"},
                    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"w": "hola"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseId": "t1",
                        "content": [{"type": "text", "text": "hello"}],
                        "isError": False,
                    },
                    {"type": "text", "text": "and now?"},
                ],
            },
        ],
        "tools": [{"name": "lookup", "inputSchema": {"type": "object", "properties": {}}}],
        "toolChoice": {"mode": "required"},
    }
    messages = sampling_messages(params)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "user"]
    call = messages[1].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("t1", "lookup", {"w": "hola"})
    result = messages[2].tool_results[0]
    assert (result.tool_call_id, result.name, result.text) == ("t1", "lookup", "hello")
    tools, choice = sampling_tools(params)
    assert [t.name for t in tools] == ["lookup"] and choice == "required"


def test_a_reply_with_tool_calls_becomes_tool_use_blocks() -> None:
    response = lb.ChatResponse(
        message=lb.ChatMessage.assistant(
            None, tool_calls=[lb.ToolCallPart(id="c1", name="lookup", arguments={"w": "x"})]
        ),
        finish_reason="tool_calls",
    )
    result = reply_result(response, model="m", with_tools=True)
    assert result.stop_reason == "toolUse" and result.model == "m"
    assert [(b.type, b.name, b.input) for b in result.content] == [
        ("tool_use", "lookup", {"w": "x"})
    ]
    plain = lb.ChatResponse(
        message=lb.ChatMessage.assistant("hi"),
        finish_reason="stop",
        raw_finish_reason="stop_sequence",
    )
    assert reply_result(plain, model="m", with_tools=False).stop_reason == "stopSequence"


@pytest.mark.anyio
async def test_server_logs_reach_the_logger_at_their_level_scrubbed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logging_callback(server="s", scrub=lambda t: t.replace("tok-123456789", "<redacted>"))
    with caplog.at_level(logging.DEBUG, logger="llmbridge.mcp"):
        for level in LEVELS:
            await log({"level": level, "data": f"{level} tok-123456789", "logger": "db"})
        await log({"level": "info", "data": {"k": ["tok-123456789"]}})
    records = [r for r in caplog.records if r.name == "llmbridge.mcp"]
    assert [r.levelno for r in records[:8]] == [10, 20, 20, 30, 40, 50, 50, 50]
    assert [getattr(r, "mcp_level", None) for r in records[:8]] == list(LEVELS)
    assert all("tok-123456789" not in r.getMessage() for r in records)
    assert records[0].getMessage() == "MCP server 's' [db]: debug <redacted>"
    assert records[-1].getMessage() == 'MCP server \'s\': {"k":["<redacted>"]}'
    assert check_log_level("alert") == "alert"
    with pytest.raises(UsageError):
        check_log_level("verbose")


def _asker(*answers: str) -> Any:
    queue = list(answers)
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if not queue:
            raise EOFError
        return queue.pop(0)

    ask.prompts = prompts  # type: ignore[attr-defined]
    return ask


def test_the_terminal_asks_each_field_and_asks_again_when_wrong() -> None:
    ask, out = (
        _asker("A", "Ann", "old", "33", "x@y", "x@y.org", "", "2", "1, 2", "y"),
        io.StringIO(),
    )
    request = ElicitationRequest("form", "Who is it for?", "hotel", FORM)
    answer = terminal_elicitor(ask=ask, out=out)(request)
    assert answer == ElicitationAnswer(
        "accept",
        {
            "name": "Ann",
            "age": 33,
            "email": "x@y.org",
            "size": "M",
            "extras": ["wifi", "breakfast"],
            "newsletter": True,
        },
    )
    assert "MCP server 'hotel' asks: Who is it for?" in out.getvalue()
    assert "age" in ask.prompts[2] and "integer; required" in ask.prompts[2]
    assert "one of 1=S, 2=M, 3=L" in ask.prompts[7]
    assert out.getvalue().count("  name") == 1  # "A" was too short: said, asked again


@pytest.mark.parametrize(
    ("answers", "action"),
    [(("Ann", "!decline"), "decline"), (("Ann", "!cancel"), "cancel"), (("Ann",), "cancel")],
)
def test_the_terminal_form_can_be_declined_or_cancelled(
    answers: tuple[str, ...], action: str
) -> None:
    request = ElicitationRequest("form", "Who?", None, FORM)
    answer = terminal_elicitor(ask=_asker(*answers), out=io.StringIO())(request)
    assert answer == ElicitationAnswer(action)  # type: ignore[arg-type]


@pytest.mark.parametrize(("typed", "action"), [("y", "accept"), ("", "decline"), ("c", "cancel")])
def test_the_terminal_shows_a_url_and_asks_to_confirm(typed: str, action: str) -> None:
    out = io.StringIO()
    request = ElicitationRequest("url", "Sign in", "s", url="https://example.com/login")
    answer = terminal_elicitor(ask=_asker(typed), out=out)(request)
    assert answer == ElicitationAnswer(action)  # type: ignore[arg-type]
    assert "URL: https://example.com/login" in out.getvalue()


@pytest.mark.anyio
async def test_a_form_schema_nothing_can_satisfy_is_declined() -> None:
    weird = {"type": "object", "properties": {"x": {"type": "no-such-type"}}}
    with pytest.raises(ElicitationContentError, match="schema cannot be used"):
        validate_content(weird, {"x": 1})
    request = ElicitationRequest("form", "?", None, weird)
    assert await checked_answer(lambda r: {"x": 1}, request) == ElicitationAnswer("decline")

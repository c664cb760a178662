"""``llmbridge`` behaves like a CLI (issue 35, items 9-12): prompt from stdin, multi-turn chat,
flags that reach the request, retry notes, errors in CLI words and never a traceback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from llmbridge.cli import bundled_fixtures_dir, entry, main
from llmbridge.cli.demo import merged_lines
from llmbridge.testing import load_fixture
from tests.fakes import chat_sse

_AsyncClient = httpx.AsyncClient
TOOLS = Path(__file__).resolve().parent / "tools"


def _text(text: str) -> httpx.Response:
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=chat_sse({"content": text})
    )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[httpx.Request]]:
    """``server(answer, ...)``: every HTTP request the CLI makes is answered by the next
    callable (the last repeats); returns the list the requests are kept in."""

    def install(*answers: Callable[[httpx.Request], httpx.Response]) -> list[httpx.Request]:
        seen: list[httpx.Request] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return answers[min(len(seen), len(answers)) - 1](request)

        class FakeClient(_AsyncClient):
            def __init__(self, **kwargs: object) -> None:
                super().__init__(transport=httpx.MockTransport(handler))

        monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        return seen

    return install


def _body(request: httpx.Request) -> dict[str, Any]:
    return json.loads(request.content)  # type: ignore[no-any-return]


# -- prompt sources and multi-turn ----------------------------------------------------------
@pytest.mark.parametrize("argv", [["-"], []])
def test_prompt_from_stdin(
    argv: list[str], server: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    seen = server(lambda r: _text("Hello!"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("Say hello\n"))
    assert main(["chat", "openai:gpt-4.1-mini", *argv]) == 0
    assert capsys.readouterr().out == "Hello!\n[stop]\n"
    assert _body(seen[0])["messages"] == [{"role": "user", "content": "Say hello"}]


def test_interactive_chat_keeps_the_history(
    server: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    answers = iter(["Hi, Ann.", "Your name is Ann."])
    seen = server(lambda r: _text(next(answers)))
    monkeypatch.setattr(sys, "stdin", io.StringIO("I am Ann.\n\nWho am I?\n"))
    assert main(["chat", "openai:gpt-4.1-mini", "-i", "--system", "Be brief."]) == 0
    assert capsys.readouterr().out == "Hi, Ann.\n[stop]\nYour name is Ann.\n[stop]\n"
    assert [m["role"] for m in _body(seen[1])["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert _body(seen[1])["messages"][2]["content"] == "Hi, Ann."


def test_flags_reach_the_request(server: Any, capsys: Any, tmp_path: Path) -> None:
    seen = server(lambda r: _text('{"city": "Paris"}'))
    schema = tmp_path / "city.json"
    schema.write_text(json.dumps({"title": "City", "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))  # fmt: skip
    argv = ["chat", "openai:gpt-4.1-mini", "Where?", "--api-key", "sk-flag"]
    argv += ["--temperature", "0.2", "--timeout", "5", "--schema", str(schema)]
    assert main(argv) == 0
    body = _body(seen[0])
    assert seen[0].headers["authorization"] == "Bearer sk-flag"
    assert body["temperature"] == 0.2
    assert body["response_format"]["json_schema"]["name"] == "City"
    capsys.readouterr()
    server(lambda r: _text("Paris, I think."))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: StructuredOutputError: the reply is not JSON")
    assert len(err.splitlines()) == 1


def test_mcp_tools_from_a_config_file(server: Any, capsys: Any, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    config = tmp_path / "mcp.json"
    server_script = str(TOOLS / "mcp_app_server.py")
    config.write_text(json.dumps({"mcpServers": {"alpha": {"command": sys.executable, "args": [server_script, "alpha", "stdio"]}}}))  # fmt: skip

    def first(request: httpx.Request) -> httpx.Response:
        names = [t["function"]["name"] for t in _body(request)["tools"]]
        (search,) = [n for n in names if "search" in n]
        call = {"index": 0, "id": "call_1", "type": "function"}
        call["function"] = {"name": search, "arguments": '{"query": "llmbridge"}'}
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=chat_sse({"tool_calls": [call]}, finish="tool_calls"),
        )

    seen = server(first, lambda r: _text("Found it."))
    assert main(["chat", "openai:gpt-4.1-mini", "Search", "--mcp", str(config)]) == 0
    out = capsys.readouterr().out
    assert "Found it." in out
    tool_message = _body(seen[1])["messages"][-1]
    assert tool_message["role"] == "tool" and "llmbridge" in tool_message["content"]


# -- retries and errors in CLI words --------------------------------------------------------
def test_retry_notes_on_stderr(server: Any, capsys: Any) -> None:
    limited = httpx.Response(429, headers={"retry-after": "0"}, json={"error": {"message": "slow"}})
    server(lambda r: limited, lambda r: _text("ok"))
    assert main(["chat", "openai:gpt-4.1-mini", "hi"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "ok\n[stop]\n"
    assert captured.err == "retrying in 0.0 s (429 from openai)\n"


def test_a_501_is_not_retried(server: Any, capsys: Any) -> None:
    seen = server(lambda r: httpx.Response(501, text="Not Implemented"))
    assert main(["chat", "openai:gpt-4.1-mini", "hi"]) == 1
    assert len(seen) == 1
    assert "retrying" not in capsys.readouterr().err


def test_a_401_names_the_key_variable(server: Any, capsys: Any) -> None:
    server(lambda r: httpx.Response(401, json={"error": {"message": "Invalid API Key"}}))
    assert main(["chat", "llamacpp:gemma", "hi", "--base-url", "http://127.0.0.1:8080/v1"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: AuthenticationError: Invalid API Key (status 401)"
    assert "LLAMACPP_API_KEY" in err[1] and "--api-key" in err[1]


def test_a_404_html_page_hints_at_v1(server: Any, capsys: Any) -> None:
    page = "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>" + "x" * 500
    server(lambda r: httpx.Response(404, text=page, headers={"content-type": "text/html"}))
    assert main(["chat", "openai-compatible:m", "hi", "--base-url", "http://127.0.0.1:8080"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0] == (
        "error: NotFoundError: HTTP 404: the server answered with an HTML page "
        "('404 Not Found') (status 404)"
    )
    assert "/v1" in err[1] and "--base-url http://127.0.0.1:8080/v1" in err[1]


def test_configuration_errors_speak_flags(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["chat", "openai-compatible:m", "hi"]) == 1
    assert "set --base-url http://host:port/v1" in capsys.readouterr().err
    assert main(["models", "openai"]) == 1
    err = capsys.readouterr().err
    assert err == "error: ConfigurationError: no API key for provider 'openai': pass --api-key or set OPENAI_API_KEY\n"  # fmt: skip
    assert main(["models", "openai", "--json"]) == 1
    row = json.loads(capsys.readouterr().err)
    assert row["type"] == "error" and row["error"] == "ConfigurationError"
    assert main(["chat", "opnai:gpt", "hi"]) == 1
    assert "did you mean 'openai'?" in capsys.readouterr().err


def test_fixture_errors_are_one_line(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "input.json").write_text("{")
    assert main(["replay", str(tmp_path / "bad")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'bad'} is not a readable fixture") and err.count("\n") == 1  # fmt: skip
    assert main(["demo", "--fixtures", str(tmp_path / "missing")]) == 1
    assert capsys.readouterr().err == f"error: --fixtures {tmp_path / 'missing'}: no such folder\n"
    (tmp_path / "empty").mkdir()
    assert main(["demo", "--fixtures", str(tmp_path / "empty")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "no fixtures found" in captured.err


def test_an_unexpected_error_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def boom(argv: Any = None) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr("llmbridge.cli.main", boom)
    monkeypatch.delenv("LLMBRIDGE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        entry()
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == "error: RuntimeError: boom\n"


@pytest.mark.usefixtures("ctrl_c")  # a KeyboardInterrupt, however the run was started
def test_ctrl_c_prints_one_line_and_exits_130() -> None:
    """A real interrupt while a request waits to be retried (a port nothing listens on)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    argv = ["chat", "llamacpp:m", "hi", "--base-url", f"http://127.0.0.1:{port}/v1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "llmbridge", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "retrying in ...": the chat is under way
    assert first.startswith(b"retrying in"), first
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert b"Traceback" not in err
    assert err.strip().splitlines()[-1] == b"interrupted"


# -- the demo's first screen -----------------------------------------------------------------
def test_demo_merges_text_and_whole_tool_calls() -> None:
    fixtures = bundled_fixtures_dir()
    with_call = next(
        p.parent
        for p in sorted(fixtures.glob("*/*/events.json"))
        if '"tool_call_end"' in p.read_text() and '"text_delta"' in p.read_text()
    )
    fixture = load_fixture(with_call)
    assert fixture.events is not None
    lines = merged_lines(fixture.events)
    assert sum(line.startswith("text ") for line in lines) <= 2
    calls = [line for line in lines if line.startswith("call ")]
    assert calls and all("\\" not in line for line in calls)
    assert not any("call args" in line for line in lines)


def test_a_web_server_is_not_taken_for_an_llm_api(server: Any, capsys: Any) -> None:
    page = "<html><head><title>Error response</title></head><body>Unsupported method</body>"
    seen = server(lambda r: httpx.Response(501, text=page, headers={"content-type": "text/html"}))
    assert (
        main(["chat", "openai-compatible:m", "hi", "--base-url", "http://127.0.0.1:8098/v1"]) == 1
    )
    assert len(seen) == 1  # a 501 is not retried
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: ServerError: HTTP 501: the server answered with an HTML page ('Error response') (status 501)"  # fmt: skip
    assert err[1].startswith(
        "hint: the server at http://127.0.0.1:8098/v1 answered with a web page"
    )


# -- the terminal and keys (issue 49, items 9 and 19) ---------------------------------------
HOSTILE = "Hi\x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x1b[2J\x9b31m\r\x7f there"
RAW = ("\x1b", "\x07", "\x9b", "\r", "\x7f")


def test_model_text_and_error_messages_reach_the_terminal_inert(server: Any, capsys: Any) -> None:
    server(lambda r: _text(HOSTILE))
    assert main(["chat", "openai:gpt-4.1-mini", "hi"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in RAW)
    assert out.startswith("Hi\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;title\\x07")
    server(lambda r: httpx.Response(400, json={"error": {"message": HOSTILE}}))
    for argv in ([], ["--json"]):
        assert main(["chat", "openai:gpt-4.1-mini", "hi", *argv]) == 1
        err = capsys.readouterr().err
        assert "Hi" in err and not any(c in err for c in RAW)


@pytest.mark.parametrize("key", ["sk-test-0123456789\n", "sk-test-0123456789\r\n", " sk-test-0123456789 "])  # fmt: skip
def test_a_key_read_with_its_newline_works(
    key: str, server: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    seen = server(lambda r: _text("ok"))
    monkeypatch.setenv("OPENAI_API_KEY", key)
    assert main(["chat", "openai:gpt-4.1-mini", "hi"]) == 0
    assert seen[0].headers["authorization"] == "Bearer sk-test-0123456789"


@pytest.mark.parametrize("how", ["environment", "flag"])
def test_a_key_with_a_control_character_inside_is_refused_on_stderr_unshown(
    how: str, server: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    seen = server(lambda r: _text("ok"))
    key = "sk-test-ABCDEF\n0123456789" if how == "environment" else "sk-test-ABCDEF\x1b0123456789"
    argv = ["chat", "openai:gpt-4.1-mini", "hi"]
    if how == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", key)
    else:
        argv += ["--api-key", key]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert not seen
    assert err.startswith("error: ConfigurationError: ") and "control character" in err
    assert "ABCDEF" not in err and "0123456789" not in err
    assert ("$OPENAI_API_KEY" in err) == (how == "environment")

"""The ``llmbridge`` command as a user runs it (offline commands only)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llmbridge.cli import bundled_fixtures_dir, main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("llmbridge ")


def test_demo_replays_every_provider_offline() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "llmbridge", "demo"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"},  # piped, no width given
    ).stdout
    providers = sorted(p.name for p in bundled_fixtures_dir().iterdir() if p.is_dir())
    assert providers, "fixtures are bundled"
    for provider in providers:
        assert f"{provider}:" in out
    assert "finish" in out
    # piped (issue 44, item 8): 80 columns, and a provider's own item said in words
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "ProviderItem(" not in out and "item      tool_plan: " in out


def test_demo_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and {"fixture", "type"} <= set(lines[0])
    assert any(line["type"] == "finish" for line in lines)


def test_demo_json_prints_every_event_of_each_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """Each fixture's lines are its whole stream, in order: what ``replay --json`` prints."""
    assert main(["demo", "--json"]) == 0
    shown: dict[str, list[dict[str, Any]]] = {}
    for line in capsys.readouterr().out.splitlines():
        event = json.loads(line)
        shown.setdefault(event.pop("fixture"), []).append(event)
    assert len(shown) == len([p for p in FIXTURES.iterdir() if p.is_dir()])
    for name, events in shown.items():
        assert main(["replay", str(FIXTURES / name), "--json"]) == 0
        assert events == [json.loads(x) for x in capsys.readouterr().out.splitlines()], name
        assert events[0]["type"] == "stream_start" and events[-1]["type"] == "finish", name


def test_replay_prints_a_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(
        p.parent
        for p in sorted(FIXTURES.glob("*/*/events.json"))
        if not (p.parent / "error.json").exists()
    )
    assert main(["replay", str(fixture), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    headers = json.loads((fixture / "response.json").read_text())["headers"]
    start = events[0]
    assert start["type"] == "stream_start"  # the client adds the request id to the goldens
    assert start.pop("request_id") == headers.get("request-id", headers.get("x-request-id"))
    assert events == json.loads((fixture / "events.json").read_text())


# -- chat: tools, replay / record, colors and JSON ----------------------------------------

EXAMPLE_FIXTURES = Path(__file__).resolve().parents[1] / "examples" / "fixtures"
WEATHER_TURNS = [EXAMPLE_FIXTURES / "openai" / "weather_call", EXAMPLE_FIXTURES / "openai" / "weather_answer"]  # fmt: skip
TOOL_MODULE = '''
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return {"Paris": "Sunny, 22 °C"}.get(city, "no data")
'''


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _chat_args(*extra: str) -> list[str]:
    return [
        "chat",
        "openai:gpt-4.1-mini",
        "What's the weather in Paris?",
        "--system",
        "Be brief.",
        "--tool",
        "weather_tools_for_cli_test:get_weather",
        *extra,
    ]


@pytest.fixture
def tool_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "weather_tools_for_cli_test.py").write_text(TOOL_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tmp_path


def _replay_args() -> list[str]:
    return [arg for turn in WEATHER_TURNS for arg in ("--replay", str(turn))]


@pytest.mark.usefixtures("tool_module")
def test_chat_runs_a_tool_loop_from_module_function_against_replayed_turns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_chat_args(*_replay_args())) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        '→ get_weather({"city":"Paris"})',
        "[tool_calls · in=57 out=15]",
        "← get_weather: Sunny, 22 °C",
        "It's sunny and 22 °C in Paris.",
        "[stop · in=87 out=11]",
    ]
    assert "\x1b[" not in out  # not a terminal: no color codes


@pytest.mark.usefixtures("tool_module")
def test_chat_json_lines_include_tool_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_chat_args(*_replay_args()), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    types = [line["type"] for line in lines]
    assert types.count("finish") == 2 and types.count("tool_call_end") == 1
    (result,) = [line for line in lines if line["type"] == "tool_result"]
    assert result == {
        "type": "tool_result",
        "id": "call_Hq7TnW3kZp9Lx2Vb",
        "name": "get_weather",
        "is_error": False,
        "content": "Sunny, 22 °C",
    }


@pytest.mark.usefixtures("tool_module")
def test_chat_colors_only_on_a_terminal_without_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = _Tty()
    monkeypatch.setattr(sys, "stdout", tty)
    assert main(_chat_args(*_replay_args())) == 0
    assert "\x1b[36m→ get_weather" in tty.getvalue()
    assert "\x1b[32m← get_weather: Sunny" in tty.getvalue()

    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Tty()
    monkeypatch.setattr(sys, "stdout", plain)
    assert main(_chat_args(*_replay_args())) == 0
    assert "\x1b[" not in plain.getvalue() and "← get_weather: Sunny" in plain.getvalue()


@pytest.mark.usefixtures("tool_module")
def test_chat_replay_mismatch_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    args = _chat_args(*_replay_args())
    args[2] = "What's the weather in Rome?"
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "error: ReplayMismatch: request does not match fixture openai/weather_call"
    )
    assert "Rome" in err


def test_chat_bad_tool_reference_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "openai:gpt-4.1-mini", "hi", "--tool", "no_such_module_x:f"]) == 1
    assert "--tool no_such_module_x:f: ModuleNotFoundError" in capsys.readouterr().err
    assert main(["chat", "openai:gpt-4.1-mini", "hi", "--tool", "json"]) == 1
    assert "--tool takes module:function" in capsys.readouterr().err


def test_chat_record_writes_one_fixture_per_turn(
    tool_module: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import llmbridge.cli.chat_session as cli
    from llmbridge.testing import RecordingTransport, ReplayTransport

    # the "network" behind the recorder is the replay of the two example turns
    monkeypatch.setattr(
        cli, "RecordingTransport", lambda: RecordingTransport(ReplayTransport(WEATHER_TURNS))
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-for-record-test")
    out = tool_module / "recorded"
    assert main(_chat_args("--record", str(out))) == 0
    assert "recorded 2 fixture(s)" in capsys.readouterr().err
    for step, source in zip(("step1", "step2"), WEATHER_TURNS, strict=True):
        for name in ("request.json", "response.sse", "events.json", "input.json"):
            assert (out / step / name).read_text() == (source / name).read_text(), (step, name)
    assert "sk-secret" not in "".join(p.read_text() for p in out.rglob("*.json"))
    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(_chat_args("--replay", str(out))) == 0  # a folder of steps replays in order
    assert "It's sunny and 22 °C in Paris." in capsys.readouterr().out


def test_chat_says_which_local_server_it_expected(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    assert main(["chat", "ollama:qwen3", "hi", "--base-url", url]) == 1
    err = capsys.readouterr().err
    assert f"ConnectionError: could not connect to 127.0.0.1:{port}" in err
    assert f"hint: is Ollama running on 127.0.0.1:{port}?" in err


def test_replay_with_a_bad_path_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no/such/fixture"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: no/such/fixture is not a fixture folder (no input.json)"


def test_demo_json_into_a_closed_pipe_ends_quietly() -> None:
    """``llmbridge demo --json | head -1``: the reader leaves; no BrokenPipeError traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "llmbridge", "demo", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "BrokenPipeError" not in err and "Traceback" not in err


def test_help_is_plain_and_documents_every_argument() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "llmbridge", "chat", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "``" not in out
    for flag in ("--max-tokens", "--tool-mode", "the user message"):
        assert flag in out
    replay = subprocess.run(
        [sys.executable, "-m", "llmbridge", "replay", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "a fixture folder" in replay


def test_models_lists_a_server_and_says_which_one_it_expected(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    import httpx

    answer = {"object": "list", "data": [{"id": "qwen3:8b", "object": "model", "created": 1}]}

    class FakeClient(httpx.AsyncClient):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(
                transport=httpx.MockTransport(lambda r: httpx.Response(200, json=answer))
            )

    monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
    assert main(["models", "ollama"]) == 0
    assert capsys.readouterr().out == "ollama:qwen3:8b\t-\t-\n"
    monkeypatch.undo()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["models", "ollama", "--base-url", f"http://127.0.0.1:{port}/v1"]) == 1
    assert f"hint: is Ollama running on 127.0.0.1:{port}?" in capsys.readouterr().err


def test_chat_attaches_files_by_their_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    sent: list[dict[str, Any]] = []
    sse = (
        b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Two pages."},'
        b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse)

    class FakeClient(httpx.AsyncClient):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(transport=httpx.MockTransport(answer))

    monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.7")
    (tmp_path / "chart.png").write_bytes(b"\x89PNG")
    argv = ["chat", "openai:gpt-4.1-mini", "Summarise.", "--file", str(tmp_path / "report.pdf")]
    assert main([*argv, "--file", str(tmp_path / "chart.png")]) == 0
    assert "Two pages." in capsys.readouterr().out
    parts = sent[0]["messages"][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "file", "image_url"]
    assert parts[1]["file"]["filename"] == "report.pdf"
    assert main(["chat", "openai:gpt-4.1-mini", "hi", "--file", str(tmp_path / "nope.pdf")]) == 1
    assert "--file" in capsys.readouterr().err


@pytest.mark.usefixtures("tool_module")
def test_a_replay_mismatch_shows_its_diff_line_by_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 44, item 4: the diff of the recorded and the sent request is readable as printed,
    not squashed onto one line."""
    args = _chat_args(*_replay_args())
    args[2] = "What's the weather in Rome?"
    assert main(args) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "error: ReplayMismatch: request does not match fixture openai/weather_call:"
    assert "body differs:" in lines
    assert any(line.startswith("+") and "Rome" in line for line in lines)
    assert any(line.startswith("-") and "Paris" in line for line in lines)


def test_chat_takes_a_tool_from_a_file_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44, item 8: ``--tool ./mytools.py:fn`` (a file, not an importable module)."""
    tools = tmp_path / "elsewhere" / "my tools.py"
    tools.parent.mkdir()
    tools.write_text(TOOL_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = _chat_args(*_replay_args())
    args[args.index("--tool") + 1] = "./elsewhere/my tools.py:get_weather"
    assert main(args) == 0
    assert "← get_weather: Sunny, 22 °C" in capsys.readouterr().out
    args[args.index("--tool") + 1] = "./elsewhere/none.py:get_weather"
    assert main(args) == 1
    assert "no such file: ./elsewhere/none.py" in capsys.readouterr().err

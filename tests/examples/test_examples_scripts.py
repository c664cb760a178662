"""Every script in ``examples/`` runs in replay mode (no key, no network) and does its job;
every fixture under ``examples/fixtures`` replays through the real client to its golden events.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from plugin_install import REPO

import llmbridge as lb
from llmbridge.testing import ReplayTransport, check_invariants, load_fixture, merge_deltas

EXAMPLES = REPO / "examples"
FIXTURES = sorted(p.parent for p in (EXAMPLES / "fixtures").glob("*/*/input.json"))
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_KEY")


def run_example(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def test_streaming_chat_prints_the_answer_and_usage() -> None:
    proc = run_example("streaming_chat.py", "--replay")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Stones learn the river's song—\n")
    assert proc.stdout.rstrip().endswith("[stop: 27 in, 24 out]")


def test_streaming_chat_replays_without_a_key_even_without_the_flag() -> None:
    proc = run_example("streaming_chat.py")
    assert proc.returncode == 0, proc.stderr
    assert "replaying" in proc.stderr and "wide sea." in proc.stdout


def test_structured_output_shows_the_recipe_filling_in_then_validated() -> None:
    proc = run_example("structured_output.py", "--replay")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "… {}"
    assert '… {"title": "Tomato soup"}' in lines
    assert lines[-1] == "Tomato soup: 25 min, 3 steps"
    values = [json.loads(line[2:]) for line in lines[:-1]]
    assert [len(v.get("steps", [])) for v in values] == sorted(
        len(v.get("steps", [])) for v in values
    )


def test_tool_loop_runs_the_tool_with_its_context_and_answers() -> None:
    proc = run_example("tool_loop.py", "--replay")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        '→ get_weather({"city":"Paris"})',
        "← Sunny, 22 °C",  # from the WeatherService passed as context
        "It's sunny and 22 °C in Paris.",
        "[final after 2 model turns]",
    ]


def test_prompt_tools_turn_function_call_tags_into_tool_calls() -> None:
    proc = run_example("prompt_tools.py")
    assert proc.returncode == 0, proc.stderr
    assert "<function_call>" not in proc.stdout
    assert proc.stdout.splitlines() == [
        "I'll check.",
        '→ get_weather({"city": "Paris"})',
        "← Sunny, 22 °C",
        "It's sunny and 22 °C in Paris.",
        "[final after 2 model turns]",
    ]


def test_prompt_tools_request_carries_instructions_not_native_tools() -> None:
    body = json.loads((EXAMPLES / "fixtures/ollama/prompt_tools_call/request.json").read_text())[
        "body"
    ]
    assert "tools" not in body
    system = body["messages"][0]["content"]
    assert system.startswith("Be brief.\n\n# Tools") and "<function_call>" in system


def test_record_fixture_writes_a_replayable_redacted_folder(tmp_path: Path) -> None:
    out = tmp_path / "haiku"
    proc = run_example("record_fixture.py", str(out), "--replay")
    assert proc.returncode == 0, proc.stderr
    assert "request header authorization: <redacted>" in proc.stdout
    source = EXAMPLES / "fixtures/anthropic/haiku"
    for name in ("input.json", "request.json", "response.json", "response.sse", "events.json"):
        assert (out / name).read_bytes() == (source / name).read_bytes(), name
    replayed = run_cli("replay", str(out))
    assert replayed.returncode == 0 and "finish    stop (end_turn) in=27 out=24" in replayed.stdout


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llmbridge", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


@pytest.mark.anyio
@pytest.mark.parametrize("chunk_size", [None, 1, 7])
@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.name}" for p in FIXTURES])
async def test_example_fixture_replays_to_its_golden_events(
    path: Path, chunk_size: int | None
) -> None:
    fx = load_fixture(path)
    transport = ReplayTransport(fx, chunk_size=chunk_size)
    config = {**fx.provider_config, "api_key": "test-key"}
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport), providers={fx.provider: config}
    )
    provider, _ = client.resolve(fx.model)
    events = [event async for event in client.stream_request(provider, fx.request)]
    transport.assert_all_played()
    assert fx.events is not None
    check_invariants(events)
    assert merge_deltas(events) == merge_deltas(fx.events)
    if chunk_size is None:
        assert events == fx.events

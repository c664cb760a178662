"""``llmbridge run SCRIPT --replay DIR`` (issue 44, item 9): a documentation block saved as a
file runs offline with one pasted line: no key, no network, the recording served instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llmbridge.cli import main

REPO = Path(__file__).resolve().parents[1]
HAIKU = REPO / "examples/fixtures/openai/autumn_haiku"
SCRIPT = """
import sys

import anyio
import llmbridge as lb


async def main() -> None:
    async with lb.Client() as client:
        answer = await client.complete("openai:gpt-4.1", [lb.ChatMessage.user({prompt!r})], max_tokens=200)
    print("ARGS", sys.argv[1:])
    print(answer.text)


anyio.run(main)
"""


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_a_script_runs_offline_against_a_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block = tmp_path / "block.py"
    block.write_text(SCRIPT.format(prompt="Write a haiku about autumn."))
    assert main(["run", str(block), "--replay", str(HAIKU), "--", "one", "--two"]) == 0
    out = capsys.readouterr().out
    assert "ARGS ['one', '--two']" in out
    assert out.split("\n", 1)[1].strip()  # the recorded haiku
    import os

    assert "OPENAI_API_KEY" not in os.environ  # the placeholder is gone again


def test_a_request_that_is_not_the_recorded_one_shows_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block = tmp_path / "block.py"
    block.write_text(SCRIPT.format(prompt="Write a haiku about spring."))
    assert main(["run", str(block), "--replay", str(HAIKU)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("error: ReplayMismatch: request does not match fixture")
    assert any(line.startswith("+") and "spring" in line for line in err)


def test_the_scripts_own_bug_keeps_its_traceback_and_its_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bug = tmp_path / "bug.py"
    bug.write_text("def f():\n    return 1 / 0\n\nf()\n")
    assert main(["run", str(bug), "--replay", str(HAIKU)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError" in err and 'bug.py", line 2' in err
    exits = tmp_path / "exits.py"
    exits.write_text("raise SystemExit(3)\n")
    assert main(["run", str(exits), "--replay", str(HAIKU)]) == 3
    assert main(["run", str(tmp_path / "none.py"), "--replay", str(HAIKU)]) == 2
    assert "no such script" in capsys.readouterr().err


def test_from_the_shell(tmp_path: Path) -> None:
    block = tmp_path / "block.py"
    block.write_text(SCRIPT.format(prompt="Write a haiku about autumn."))
    done = subprocess.run(
        [sys.executable, "-m", "llmbridge", "run", str(block), "--replay", str(HAIKU)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ARGS []\n") and len(done.stdout.splitlines()) > 1

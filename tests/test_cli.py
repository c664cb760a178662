"""The ``llmbridge`` command as a user runs it (offline commands only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    ).stdout
    providers = sorted(p.name for p in bundled_fixtures_dir().iterdir() if p.is_dir())
    assert providers, "fixtures are bundled"
    for provider in providers:
        assert f"{provider}:" in out
    assert "finish" in out


def test_demo_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and {"fixture", "type"} <= set(lines[0])
    assert any(line["type"] == "finish" for line in lines)


def test_replay_prints_a_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(
        p.parent
        for p in sorted(FIXTURES.glob("*/*/events.json"))
        if not (p.parent / "error.json").exists()
    )
    assert main(["replay", str(fixture), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events == json.loads((fixture / "events.json").read_text())

"""A checkout without ``../shared/corpus`` must not test less by accident: locally the tests that
need it skip and the run says so once, loudly, with the count; under CI they fail."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEEDS_CORPUS = (
    "tests/tools/test_tools_search_loop.py::test_responses_client_search_loop_on_the_recordings"
)


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "CI"}
    environ.update(LLMBRIDGE_CORPUS=str(tmp_path / "no-corpus"), PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", NEEDS_CORPUS],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


@functools.cache
def _collected() -> int:
    """How many tests ``NEEDS_CORPUS`` is (one per loop it runs on; listed once per worker)."""
    listing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--collect-only",
            "-p",
            "no:cacheprovider",
            NEEDS_CORPUS,
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    count = sum(1 for line in listing.stdout.splitlines() if "::" in line)
    assert count >= 1, listing.stdout
    return count


def test_locally_an_absent_corpus_skips_and_says_how_many(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [x for x in run.stdout.splitlines() if "tests skipped: ../shared/corpus is absent" in x]
    assert len(lines) == 1, run.stdout
    assert f"{_collected()} tests skipped" in lines[0], lines[0]
    assert str(tmp_path / "no-corpus") in lines[0]


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_an_absent_corpus_fails_the_run(tmp_path: Path, ci: str) -> None:
    run = _run(tmp_path, CI=ci)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "CI is set and the recorded corpus is absent" in run.stdout
    n = _collected()
    assert (f"{n} errors" if n > 1 else "1 error") in run.stdout


def test_ci_false_is_a_local_run(tmp_path: Path) -> None:
    assert _run(tmp_path, CI="false").returncode == 0

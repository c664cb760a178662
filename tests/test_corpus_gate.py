"""A checkout without ``../shared/corpus`` must not test less by accident: locally the tests that
need it skip and the run says so once, loudly, with the count; under CI they fail."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import corpus

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


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """The local run (no ``CI``), once for the module: its folder, its output and how many tests
    pytest itself counted as skipped (``NEEDS_CORPUS`` on each loop it runs on)."""
    tmp_path = tmp_path_factory.mktemp("local")
    run = _run(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stdout.splitlines()[-1]
    found = re.search(r"(\d+) skipped", last)
    assert found is not None and "passed" not in last, run.stdout  # every one of them skipped
    return tmp_path, run.stdout, int(found.group(1))


def test_locally_an_absent_corpus_skips_and_says_how_many(
    local_run: tuple[Path, str, int],
) -> None:
    tmp_path, stdout, skipped = local_run
    assert skipped >= 1
    lines = [x for x in stdout.splitlines() if "tests skipped: ../shared/corpus is absent" in x]
    assert len(lines) == 1, stdout
    assert f"{skipped} tests skipped" in lines[0], lines[0]
    assert str(tmp_path / "no-corpus") in lines[0]


def test_under_ci_an_absent_corpus_fails_the_run(
    tmp_path: Path, local_run: tuple[Path, str, int]
) -> None:
    run = _run(tmp_path, CI="true")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "CI is set and the recorded corpus is absent" in run.stdout
    n = local_run[2]  # every test that skipped locally fails here
    assert (f"{n} errors" if n > 1 else "1 error") in run.stdout


@pytest.mark.parametrize(
    ("value", "ci"),
    [
        *[("true", True), ("1", True), ("yes", True), (" TRUE ", True)],
        *[("", False), ("0", False), ("false", False), ("False", False), ("no", False)],
    ],
)
def test_which_values_of_ci_mean_a_ci_run(
    monkeypatch: pytest.MonkeyPatch, value: str, ci: bool
) -> None:
    """The spellings CI services and people use (the two runs above show what each means)."""
    monkeypatch.setenv("CI", value)
    assert corpus.under_ci() is ci


def test_no_ci_variable_is_a_local_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert corpus.under_ci() is False

"""The benchmark scripts run end to end (tiny sizes, nothing timed or asserted about speed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_stream_benchmark_decodes_every_format() -> None:
    out = _run("bench_stream.py", "--quick", "--markdown")
    for fmt in ("openai", "anthropic", "gemini", "openai-responses"):
        assert f"| {fmt} |" in out


def test_fallback_benchmark_reports_each_chunk_size() -> None:
    out = _run("bench_fallback.py", "--quick", "--markdown")
    assert "| plain | 8 |" in out and "| one call | 64 |" in out


def test_import_benchmark_loads_no_provider() -> None:
    out = _run("bench_import.py", "--quick", "--markdown")
    assert "Provider modules loaded by `import llmbridge`: none." in out


@pytest.mark.skipif(sys.platform == "win32", reason="loopback subprocess server")
def test_concurrency_benchmark_streams_are_exact() -> None:
    out = _run("bench_concurrency.py", "--quick", "--markdown")
    assert "| every stream exact | yes |" in out

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


def test_prompt_tools_benchmark_reports_each_chunk_size() -> None:
    out = _run("bench_prompt_tools.py", "--quick", "--markdown")
    assert "| plain | 8 |" in out and "| one call | 64 |" in out


def test_import_benchmark_loads_no_provider() -> None:
    out = _run("bench_import.py", "--quick", "--markdown")
    assert "Provider modules loaded by `import llmbridge`: none." in out


def test_linear_benchmark_reports_every_hostile_size() -> None:
    out = _run("bench_linear.py", "--quick", "--markdown")
    for case in ("ollama-native decoder", "cohere decoder", "`Accumulator`", "`PartialJson`"):
        assert case in out, out


@pytest.mark.skipif(sys.platform == "win32", reason="loopback subprocess server")
def test_concurrency_benchmark_streams_are_exact() -> None:
    for transport, loop in [("httpx", "trio"), ("aiohttp", "uvloop")]:
        out = _run(
            "bench_concurrency.py",
            "--quick",
            "--markdown",
            "--transport",
            transport,
            "--loop",
            loop,
        )
        assert f"| {transport} | {loop} |" in out and out.rstrip().endswith("| yes |")


@pytest.mark.skipif(sys.platform != "linux", reason="loopback subprocess server, /proc")
def test_scale_benchmark_compares_every_client_with_the_raw_stack() -> None:
    for loop, clients in [("asyncio", "raw,default,aiohttp"), ("trio", "raw,default-sized")]:
        out = _run(
            "bench_scale.py",
            *("--sizes", "8", "--events", "3", "--gap-ms", "1"),
            *("--loop", loop, "--clients", clients, "--markdown"),
        )
        rows = [line for line in out.splitlines() if line.startswith("| 8 |")]
        assert len(rows) == len(clients.split(",")), out
        assert all("| 0 | yes |" in row for row in rows), out
        assert "(1.00×)" in rows[0] and "raw httpx" in rows[0]


def test_run_all_refreshes_the_readme_section_and_nothing_else(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    import run_all

    readme = BENCH.parent / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert text.count(run_all.START) == 1 and text.count(run_all.END) == 1
    copy = tmp_path / "README.md"
    copy.write_text(text, encoding="utf-8")
    run_all.update_readme(copy, "| fresh | numbers |")
    head, _, rest = text.partition(run_all.START)
    new = copy.read_text(encoding="utf-8")
    assert new.startswith(head + run_all.START + "\n| fresh | numbers |\n" + run_all.END)
    assert new.endswith(rest.partition(run_all.END)[2])

"""Issue 46, item 4: a call split into pieces decodes into one buffer (no join), base64 straight
from the body's bytes (no parsed strings): peak memory at most 1.5x the raw vectors, answers
aside. Measured in a fresh interpreter (``peak_probe.py`` says why), on each loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_split_calls_numpy_array_costs_little_more_than_its_float32_bytes(backend: str) -> None:
    pytest.importorskip("numpy")
    run = subprocess.run(
        [sys.executable, "-m", "tests.embeddings.peak_probe", backend],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    got = orjson.loads(run.stdout)
    assert got["shape"] == [1500, 256] and got["equal"], got  # every vector, exactly
    assert got["input_tokens"] == 1500  # the pieces' usage summed
    assert got["ratio"] <= 1.5, f"peak {got['ratio']:.2f}x the raw vectors"

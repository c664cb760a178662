"""Run the protocols' own reference clients (tests/ui/node/read_streams.mjs) on our streams.

``read(cases)`` sends every case to one Node process; the tests skip, saying why, when Node or
the npm packages (``npm ci`` in tests/ui/node) are not there.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

NODE_DIR = Path(__file__).resolve().parent / "node"
NEEDED = ("ai", "@ag-ui/core", "@ag-ui/client")


def missing() -> str | None:
    """Why the reference clients cannot run here (``None``: they can)."""
    if shutil.which("node") is None:
        return "node is not installed (the reference clients are npm packages)"
    for name in NEEDED:
        if not (NODE_DIR / "node_modules" / name / "package.json").exists():
            return f"npm package {name} missing: run `npm ci` in tests/ui/node"
    return None


def require() -> None:
    reason = missing()
    if reason is not None:
        pytest.skip(reason)


def read(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each case's result (by ``name``+``protocol``) as the reference clients read it."""
    require()
    run = subprocess.run(
        ["node", "read_streams.mjs"],
        cwd=NODE_DIR,
        input=orjson.dumps(cases),
        capture_output=True,
        timeout=120,
        check=False,
    )
    if run.returncode != 0:
        raise AssertionError(f"node failed: {run.stderr.decode(errors='replace')[-3000:]}")
    results = orjson.loads(run.stdout)
    return {f"{r['name']}|{c['protocol']}": r for r, c in zip(results, cases, strict=True)}

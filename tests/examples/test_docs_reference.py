"""What the docs promise about themselves: the README's event table names every event type,
and every replay-marked doc block says how to run it offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from plugin_install import REPO

import llmbridge as lb
from llmbridge.tools.results import ToolResult

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_readme_event_table_lists_every_event_type() -> None:
    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("## Events") :]
    rows = set(re.findall(r"^\| `(\w+)`[^|]*\| `(\w+)` \|", table, re.M))
    events = [*typing.get_args(lb.events.StreamEvent), ToolResult]
    missing = {(e.__name__, e.type) for e in events} - rows
    assert not missing, f"README's event table lacks {sorted(missing)}"


def test_replay_marked_blocks_say_how_to_run_offline() -> None:
    block = re.compile(r"<!--\s*replay:(?P<paths>[^>]*?)\s*-->\s*\n```python\n.*?```\n\n(?P<after>[^\n]*)", re.S)  # fmt: skip
    found = 0
    for doc in DOCS:
        for match in block.finditer(doc.read_text()):
            found += 1
            after = match.group("after")
            assert after.startswith("*Offline:*"), (doc.name, after)
            for path in match.group("paths").split():
                assert f"llmbridge replay {path}" in after, (doc.name, path)
    assert found >= 10


def test_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    """``mkdocs build --strict`` (the ``docs`` extra): a docstring griffe cannot read, an
    object that is gone, a broken reference page fails here (and in ``.ci/run``)."""
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (tmp_path / "reference" / "clients" / "index.html").read_text()
    assert "stream_request" in page and "SyncClient" in page

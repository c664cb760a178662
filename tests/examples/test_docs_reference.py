"""What the docs promise about themselves: the README's event table names every event type,
and every replay-marked doc block says how to run it offline."""

from __future__ import annotations

import re
import typing

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

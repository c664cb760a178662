"""The *Offline:* line under each documentation block that replays recordings: the one line a
reader pastes to run the block offline (``llmbridge run block.py --replay ...``).

``python tests/examples/offline_lines.py`` rewrites the lines from the blocks' ``replay:``
markers; ``test_examples_docs.py::test_every_replayed_block_says_how_to_run_it_offline`` fails
when one drifts (and says to run this).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!--\s*(?P<marker>[^>]*?)\s*-->\s*\n)?```python\n(?P<code>.*?)```\n", re.S)
OFFLINE = re.compile(r"^\*Offline:\*.*$", re.M)
PROFILE = re.compile(r"""["']profile["']\s*:\s*["'](\w+)["']""")


def offline_line(paths: list[str], code: str) -> str:
    """What a reader is told under a block replaying ``paths``."""
    replay = " ".join(f"--replay {p}" for p in paths)
    shown = " and ".join(f"`llmbridge replay {p}`" for p in paths)
    what = "it streams" if len(paths) == 1 else "they stream"
    plural = "s" if len(paths) > 1 else ""
    line = (
        "*Offline:* saved as `block.py`, this block runs with no key and no network: "
        f"`llmbridge run block.py {replay}` serves the recording{plural} instead "
        f"({shown} prints what {what})"
    )
    profile = PROFILE.search(code)
    if profile:  # a named profile must exist to sign with, though any keys will do
        line += (
            f"; it signs with the AWS profile `{profile.group(1)}`, so one by that name must "
            "exist (placeholder keys will do)"
        )
    return line + "."


def rewritten(text: str) -> str:
    """``text`` with each replayed block's *Offline:* line as ``offline_line`` says."""
    out, pos = [], 0
    for block in BLOCK.finditer(text):
        marker = block.group("marker") or ""
        if not marker.startswith("replay:"):
            continue
        want = offline_line(marker.removeprefix("replay:").split(), block.group("code"))
        rest = text[block.end() :]
        following = BLOCK.search(rest)
        found = OFFLINE.search(rest[: following.start() if following else len(rest)])
        out.append(text[pos : block.end()])
        if found:
            out.append(rest[: found.start()] + want)
            pos = block.end() + found.end()
        else:
            out.append("\n" + want + "\n")
            pos = block.end()
    out.append(text[pos:])
    return "".join(out)


def drifted() -> list[Path]:
    """The documents whose *Offline:* lines are not what their blocks say."""
    return [doc for doc in DOCS if rewritten(doc.read_text()) != doc.read_text()]


if __name__ == "__main__":
    for doc in drifted():
        doc.write_text(rewritten(doc.read_text()))
        print("rewrote", doc.relative_to(REPO))
    sys.exit(0)

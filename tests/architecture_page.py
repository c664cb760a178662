"""The measured part of ``docs/architecture.md``, generated from the import graph.

Run it from the repository root::

    python -m tests.architecture_page           # print the generated block
    python -m tests.architecture_page --write   # rewrite it in docs/architecture.md

Rules: the page keeps the block between ``BEGIN`` and ``END`` exactly as ``block()`` makes it
from ``tests/import_graph.py``'s graph (modules, floors, arrows, circles; the same by folder;
each folder's floor, module count and what it imports). ``tests/test_architecture_page.py`` fails when
the page and the code drift apart and prints the command above.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.import_graph import PACKAGE, ROOT, Graph, build_graph, rule_breaches

PAGE = ROOT.parent / "docs" / "architecture.md"
BEGIN = "<!-- generated: python -m tests.architecture_page --write (do not edit by hand) -->"
END = "<!-- end of generated block -->"
COMMAND = "python -m tests.architecture_page --write"

__all__ = ["BEGIN", "COMMAND", "END", "PAGE", "block", "main", "page_block"]


def _row(label: str, graph: Graph, breaches: int) -> str:
    floors = graph.floors()
    pairs = {(a.source, a.target) for a in graph.arrows}
    back = len(graph.back_arrows()) + breaches
    levels = max(floors.values(), default=-1) + 1
    return (
        f"| {label} | {len(graph.modules)} | {levels} | {len(pairs)} | {back} | "
        f"{len(graph.cycles())} |"
    )


def _short(module: str) -> str:
    return module.removeprefix(f"{PACKAGE}.")


def block(root: Path = ROOT) -> str:
    """The generated block, its markers included."""
    graph = build_graph(root)
    bare = build_graph(root, parents=False)
    rooms = bare.rooms()
    lines = [
        BEGIN,
        "",
        "| graph | rooms | floors | arrows | back up | circles |",
        "|---|---|---|---|---|---|",
        _row("modules, package `__init__`s counted", graph, len(rule_breaches(graph))),
        _row("modules, without the package `__init__` arrows", bare, len(rule_breaches(bare))),
        _row("folders (a top-level module or package is one room)", rooms, 0),
        "",
        "Folders by floor (a folder imports only folders on floors below its own):",
        "",
        "| floor | folder | modules | imports |",
        "|---|---|---|---|---|",
    ]
    floors = rooms.floors()
    for room in sorted(rooms.modules, key=lambda r: (-floors[r], r)):
        inside = [m for m in graph.modules if m == room or m.startswith(f"{room}.")]
        targets = ", ".join(f"`{_short(t)}`" for t in sorted(rooms.edges[room])) or "—"
        lines.append(f"| {floors[room]} | `{_short(room)}` | {len(inside)} | {targets} |")
    lines += ["", END]
    return "\n".join(lines)


def page_block(text: str) -> str:
    """The block as the page holds it now ("" when the markers are missing)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return ""
    return text[start : end + len(END)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    fresh = block()
    if "--write" not in args:
        print(fresh)
        return 0
    text = PAGE.read_text(encoding="utf-8")
    old = page_block(text)
    if not old:
        print(f"{PAGE}: no generated block (add the two marker lines)", file=sys.stderr)
        return 1
    PAGE.write_text(text.replace(old, fresh), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

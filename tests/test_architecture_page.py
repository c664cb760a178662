"""``docs/architecture.md`` tells the truth about the code (issue 42): its measured block is
what ``python -m tests.architecture_page`` makes from the import graph today."""

from __future__ import annotations

from pathlib import Path

from tests.architecture_page import BEGIN, COMMAND, END, PAGE, block, page_block


def test_the_architecture_page_matches_the_import_graph() -> None:
    held = page_block(PAGE.read_text(encoding="utf-8"))
    assert held, f"{PAGE.name} lost its generated block; add the markers and run: {COMMAND}"
    assert held == block(), f"docs/architecture.md drifted from the code; regenerate it: {COMMAND}"


def test_a_new_module_makes_the_page_drift(tmp_path: Path) -> None:
    root = tmp_path / "llmbridge"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from .sub import b\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("")
    before = block(root)
    assert before.startswith(BEGIN) and before.endswith(END)
    assert "| 1 | `a` | 1 | `sub` |" in before and "| 0 | `sub` | 2 | — |" in before
    (root / "c.py").write_text("from . import a\n")
    after = block(root)
    assert after != before and "| 2 | `c` | 1 | `a` |" in after

"""Every module of ``llmbridge`` opens with a docstring that says its job in a few lines
(issue 42): a first paragraph of at most eight lines, the rules after it if it has any."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "llmbridge"
FIRST_PARAGRAPH_LINES = 8


def _problems(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        where = path.relative_to(root.parent)
        if not doc or len(doc.split()) < 5:
            found.append(f"{where}: no docstring saying the module's job")
            continue
        first = doc.split("\n\n")[0]
        if len(first.splitlines()) > FIRST_PARAGRAPH_LINES:
            found.append(f"{where}: the job takes {len(first.splitlines())} lines to say")
    return found


def test_every_module_says_its_job() -> None:
    problems = _problems(ROOT)
    assert not problems, "\n".join(problems)


def test_the_check_sees_a_missing_or_rambling_docstring(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bare.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "long.py").write_text('"""' + "a line of words\n" * 9 + '"""\n')
    (tmp_path / "pkg" / "good.py").write_text(
        '"""Reads frames and yields events.\n\nRules: x."""\n'
    )
    assert _problems(tmp_path / "pkg") == [
        "pkg/bare.py: no docstring saying the module's job",
        "pkg/long.py: the job takes 9 lines to say",
    ]

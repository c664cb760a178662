"""Module length and cyclomatic complexity of ``llmbridge``, counted with ``ast`` (no radon).

Run it from the repository root::

    python -m tests.code_size            # every module over 400 lines, every function over 25

Rules: a module's length is its line count. A function's complexity is 1 plus one per decision
inside it, counted as radon counts them: ``if``/``elif``, a conditional expression, ``for`` /
``while`` (and their ``else``), each ``except``, a ``try``'s ``else``, each ``case``, each
``and``/``or`` operand after the first, each comprehension's ``for`` and ``if``, each
``assert``. A nested function or class is its own entry, not part of its parent's count.
``tests/test_code_size.py`` holds the package to the two limits.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "llmbridge"
MAX_LINES = 400
MAX_COMPLEXITY = 25

__all__ = ["MAX_COMPLEXITY", "MAX_LINES", "ROOT", "complexity", "functions", "main", "module_lines"]

_BRANCHES = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.Assert)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Cyclomatic complexity of one function, its nested functions and classes left out."""
    total = 1
    work: list[ast.AST] = list(ast.iter_child_nodes(function))
    while work:
        node = work.pop()
        if isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
            continue
        if isinstance(node, _BRANCHES):
            total += 1
        if (isinstance(node, _LOOPS) and node.orelse) or (
            isinstance(node, ast.Try) and node.orelse
        ):
            total += 1
        elif isinstance(node, ast.BoolOp):
            total += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            total += 1 + len(node.ifs)
        elif isinstance(node, ast.match_case):
            total += 1
        work.extend(ast.iter_child_nodes(node))
    return total


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int, int]]:
    """Every function and method as (qualified name, line, complexity)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{node.name}"
            yield name, node.lineno, complexity(node)
            yield from functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")
        else:
            yield from functions(node, prefix)


def module_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def measure(root: Path = ROOT) -> tuple[dict[str, int], dict[str, int]]:
    """(module -> lines, "module:function" -> complexity) for every module under ``root``;
    module names are paths relative to the package's parent (``llmbridge/errors.py``)."""
    lines: dict[str, int] = {}
    scores: dict[str, int] = {}
    for path in sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts):
        where = path.relative_to(root.parent).as_posix()
        lines[where] = module_lines(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, _line, score in functions(tree):
            scores[f"{where}:{name}"] = score
    return lines, scores


def main(argv: list[str] | None = None) -> int:
    lines, scores = measure()
    long = {m: n for m, n in lines.items() if n > MAX_LINES}
    tangled = {f: c for f, c in scores.items() if c > MAX_COMPLEXITY}
    print(f"{len(lines)} modules, {sum(lines.values())} lines, {len(scores)} functions")
    print(f"over {MAX_LINES} lines: {len(long)}")
    for module, count in sorted(long.items(), key=lambda kv: -kv[1]):
        print(f"  {count:5} {module}")
    print(f"over complexity {MAX_COMPLEXITY}: {len(tangled)}")
    for function, score in sorted(tangled.items(), key=lambda kv: -kv[1]):
        print(f"  {score:5} {function}")
    return 1 if long or tangled else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""No provider folder imports another provider's internal modules (issue 42, item 7).

A family that builds on another (Claude on the clouds on ``anthropic``, the Responses presets on
``openai``) uses that package's public face, its ``__init__`` exports; what several providers
share lives outside every provider folder (``providers/base.py``, ``providers/hosts/``, ...).
The walk reads every module of ``llmbridge/providers/*/`` with ``ast``: ``from ..other.module
import x``, ``import llmbridge.providers.other.module``, ``from ..other import module`` (a
submodule, not a name of the face) and a literal ``importlib.import_module(...)`` path count.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "llmbridge" / "providers"
PACKAGE = "llmbridge.providers"
SHARED = frozenset({"hosts"})
"""Folders under ``providers`` that are shared pieces, not providers."""


def _providers(root: Path) -> set[str]:
    return {
        p.name
        for p in root.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in SHARED
    }


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    base = current.split(".") if is_package else current.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _targets(tree: ast.AST, current: str, is_package: bool, root: Path) -> list[tuple[str, int]]:
    """Every module of ours an import in ``tree`` reaches, with its line."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = (
                _resolve(current, is_package, node.level, node.module)
                if node.level
                else node.module or ""
            )
            found.append((target, node.lineno))
            folder = root.joinpath(*target.split(".")[2:]) if target.startswith(PACKAGE) else None
            for alias in node.names:  # ``from ..other import module``: the submodule itself
                if folder is not None and (folder / f"{alias.name}.py").exists():
                    found.append((f"{target}.{alias.name}", node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.args[0].value, node.lineno))
    return found


def _inside(folder: Path, path: Path) -> bool:
    return path.is_relative_to(folder)


def boundary_breaches(root: Path = ROOT) -> list[str]:
    """``file:line -> module`` for each import of another provider's internal module."""
    providers = _providers(root)
    breaches: list[str] = []
    for own in sorted(providers):
        for path in sorted((root / own).rglob("*.py")):
            current = _module_name(root, path)
            tree = ast.parse(path.read_text(), str(path))
            for target, line in _targets(tree, current, path.name == "__init__.py", root):
                parts = target.split(".")
                if parts[:2] != PACKAGE.split(".") or len(parts) < 4:
                    continue  # not a module inside a provider folder
                other = parts[2]
                if other in providers and other != own:
                    where = path.relative_to(root.parent.parent)
                    breaches.append(f"{where}:{line} -> {target}")
    return breaches


def test_no_provider_folder_imports_another_providers_internals() -> None:
    assert _providers(ROOT) >= {"anthropic", "anthropic_clouds", "bedrock", "openai", "gemini"}
    assert boundary_breaches() == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "llmbridge" / "providers"
    for name, text in {"__init__.py": "", "base.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


_FACE = {
    "alpha/__init__.py": "from .inner import thing\n",
    "alpha/inner.py": "thing = 1\n",
    "hosts/__init__.py": "",
    "hosts/cloud.py": "",
}


@pytest.mark.parametrize(
    "line",
    [
        "from ..alpha.inner import thing",
        "from ..alpha import inner",
        "import llmbridge.providers.alpha.inner",
        "from llmbridge.providers.alpha.inner import thing",
        "def later():\n    from ..alpha.inner import thing",
        "import importlib\nimportlib.import_module('llmbridge.providers.alpha.inner')",
    ],
)
def test_the_walk_sees_an_import_of_another_providers_internals(tmp_path: Path, line: str) -> None:
    root = _tree(tmp_path, {**_FACE, "beta/__init__.py": "", "beta/user.py": line + "\n"})
    breaches = boundary_breaches(root)
    assert len(breaches) == 1 and breaches[0].endswith("-> llmbridge.providers.alpha.inner")
    assert "beta/user.py" in breaches[0]


@pytest.mark.parametrize(
    "line",
    [
        "from ..alpha import thing",  # the face
        "from .. import alpha",
        "import llmbridge.providers.alpha",
        "from ..base import x",  # shared, not a provider
        "from ..hosts.cloud import x",  # shared hosts
        "from .own import x",  # its own folder
    ],
)
def test_the_face_and_shared_modules_are_fine(tmp_path: Path, line: str) -> None:
    root = _tree(
        tmp_path,
        {**_FACE, "beta/__init__.py": "", "beta/own.py": "", "beta/user.py": line + "\n"},
    )
    assert boundary_breaches(root) == []

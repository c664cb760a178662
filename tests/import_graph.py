"""The import graph of ``llmbridge``: rooms (modules), floors, arrows, arrows back up, circles.

Run it from the repository root::

    python -m tests.import_graph            # summary: rooms, floors, arrows, circles
    python -m tests.import_graph --no-parents  # without the packages Python runs on the way
    python -m tests.import_graph --floors   # every module by floor, with what it imports
    python -m tests.import_graph --arrows   # every arrow, with the kind of import behind it

Rules this reader keeps (``tests/test_import_graph.py`` holds the code to them):

* Every ``import`` counts: module level, under ``if TYPE_CHECKING:`` and inside functions. A lazy
  re-export is an arrow too: ``importlib.import_module("llmbridge.x")`` with a literal name, and
  a literal ``"llmbridge.x"`` module path in a table read by ``importlib``.
* Relative imports resolve against the importing module's package (an ``__init__`` is its own
  package). Importing a package is an arrow to its ``__init__`` (the module named like the
  package); ``from pkg import name`` where ``pkg/name.py`` exists is an arrow to that submodule,
  unless ``pkg/__init__`` binds ``name`` itself (``from .plan import plan``: the front door's
  ``plan``), otherwise to ``pkg`` itself. Python also runs ``pkg/__init__`` before ``pkg.sub``: with
  ``--parents`` that is an arrow too (kind ``parent``; never to ``llmbridge/__init__``, the
  public face every module would point at). It is left out of the rules: a package's
  ``__init__`` that re-exports its rooms is a front door, and counting it would fuse each
  package into one room.
* A room is a module; its floor is 0 when it imports nothing of ours, else one above the highest
  floor it imports (a circle shares one floor). An arrow runs back up when it closes a circle
  (a back edge of a depth-first walk over sorted names) or breaks a named rule below.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "llmbridge"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

__all__ = [
    "PROTOCOL",
    "WALK",
    "Arrow",
    "Graph",
    "build_graph",
    "main",
    "rule_breaches",
]


@dataclass(frozen=True, slots=True)
class Arrow:
    """One import of one of our modules by another."""

    source: str
    target: str
    kind: str  # "module", "type-checking", "function", "dynamic" or "parent"
    line: int


@dataclass
class Graph:
    """Modules, the arrows between them, and what follows from them."""

    modules: dict[str, Path]
    arrows: list[Arrow]
    edges: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.edges = {name: set() for name in self.modules}
        for arrow in self.arrows:
            self.edges[arrow.source].add(arrow.target)

    # -- circles -----------------------------------------------------------------------------

    def components(self) -> list[list[str]]:
        """Strongly connected components (Tarjan), each sorted, in reverse topological order."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        out: list[list[str]] = []
        counter = 0

        def visit(start: str) -> None:
            nonlocal counter
            work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(self.edges[start])))]
            index[start] = low[start] = counter
            counter += 1
            stack.append(start)
            on_stack.add(start)
            while work:
                node, children = work[-1]
                child = next(children, None)
                if child is not None:
                    if child not in index:
                        index[child] = low[child] = counter
                        counter += 1
                        stack.append(child)
                        on_stack.add(child)
                        work.append((child, iter(sorted(self.edges[child]))))
                    elif child in on_stack:
                        low[node] = min(low[node], index[child])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    members: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    out.append(sorted(members))

        for name in sorted(self.modules):
            if name not in index:
                visit(name)
        return out

    def cycles(self) -> list[list[str]]:
        """The circles, as paths: for each arrow back up, the shortest way round through it."""
        knot = {m: n for n, members in enumerate(self.components()) for m in members}
        found: set[tuple[str, ...]] = set()
        for source, target in self.back_arrows():
            inside = {m for m, n in knot.items() if n == knot[source]}
            cycle = self._shortest_cycle(target, inside, through=source)
            found.add(tuple(cycle))
        return sorted(list(c) for c in found)

    def _shortest_cycle(self, start: str, inside: set[str], *, through: str) -> list[str]:
        """``start`` -> ... -> ``through`` -> ``start``, shortest first."""
        if through == start:
            return [start, start]
        path = self._path(start, through, inside)
        return [*path, start]

    def _path(self, start: str, end: str, inside: set[str]) -> list[str]:
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier:
            following: list[str] = []
            for node in frontier:
                for child in sorted(self.edges[node] & inside):
                    if child in previous or child == start:
                        continue
                    previous[child] = node
                    if child == end:
                        path = [end]
                        while path[-1] != start:
                            path.append(previous[path[-1]])
                        return path[::-1]
                    following.append(child)
            frontier = following
        raise AssertionError(f"no way from {start} to {end} inside their circle")

    def back_arrows(self) -> list[tuple[str, str]]:
        """Arrows that close a circle: back edges of a depth-first walk over sorted names."""
        state: dict[str, int] = {}  # 1 = on the walk, 2 = done
        back: list[tuple[str, str]] = []
        for root in sorted(self.modules):
            if root in state:
                continue
            state[root] = 1
            work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(self.edges[root])))]
            while work:
                node, children = work[-1]
                child = next(children, None)
                if child is None:
                    state[node] = 2
                    work.pop()
                elif state.get(child) == 1:
                    back.append((node, child))
                elif child not in state:
                    state[child] = 1
                    work.append((child, iter(sorted(self.edges[child]))))
        return back

    def rooms(self) -> Graph:
        """The same graph by folder: each top-level module or package of ``llmbridge`` is one
        room (``llmbridge.providers.openai.decode`` is in ``llmbridge.providers``); the
        package's own ``__init__`` and arrows inside a room are left out."""

        def room(module: str) -> str:
            return ".".join(module.split(".")[:2])

        rooms = {room(m): self.modules[m] for m in self.modules if m != PACKAGE}
        arrows = [
            Arrow(room(a.source), room(a.target), a.kind, a.line)
            for a in self.arrows
            if a.source != PACKAGE and a.target != PACKAGE and room(a.source) != room(a.target)
        ]
        return Graph(rooms, arrows)

    # -- floors ------------------------------------------------------------------------------

    def floors(self) -> dict[str, int]:
        """Floor of every module: 0 imports nothing of ours, else one above what it imports."""
        floor: dict[str, int] = {}
        for members in self.components():  # reverse topological: what is imported comes first
            inside = set(members)
            below = [floor[t] for m in members for t in self.edges[m] if t not in inside]
            level = max(below, default=-1) + 1
            for member in members:
                floor[member] = level
        return floor


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _walk(node: ast.AST, kind: str) -> Iterator[tuple[ast.AST, str]]:
    """Every node with the kind of place it sits in (module level, TYPE_CHECKING, function)."""
    for child in ast.iter_child_nodes(node):
        child_kind = kind
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            child_kind = "function" if kind == "module" else kind
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            yield child, kind
            for inner in child.body:
                yield inner, "type-checking"
                yield from _walk(inner, "type-checking")
            for inner in child.orelse:
                yield inner, kind
                yield from _walk(inner, kind)
            continue
        yield child, child_kind
        yield from _walk(child, child_kind)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id in ("TYPE_CHECKING", "_TYPE_CHECKING")
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _targets(
    node: ast.AST,
    current: str,
    is_package: bool,
    modules: dict[str, Path],
    bound: dict[str, set[str]],
) -> Iterable[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield from _known(alias.name, modules)
    elif isinstance(node, ast.ImportFrom):
        base = _resolve(current, is_package, node.level, node.module)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in modules and alias.name not in bound.get(base, set()):
                yield submodule
            else:
                yield from _known(base, modules)
    elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            name = first.value
            if name.startswith("."):
                level = len(name) - len(name.lstrip("."))
                name = _resolve(current, is_package, level, name.lstrip(".") or None)
            yield from _known(name, modules)


def _tabled(tree: ast.Module, modules: dict[str, Path]) -> Iterable[tuple[str, int]]:
    """Module paths a module keeps in a table for ``importlib``: a literal passed to a call
    (``_Builtin("llmbridge.x", "create")``) or bound to a name that ``import_module`` reads."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    loaders = [c for c in calls if _is_import_module(c.func)]
    if not loaders:
        return
    read = {c.args[0].id for c in loaders if c.args and isinstance(c.args[0], ast.Name)}
    for call in calls:
        if call in loaders:
            continue
        for arg in call.args:
            value = arg.value if isinstance(arg, ast.Constant) else None
            if isinstance(value, str) and value.startswith(f"{PACKAGE}.") and value in modules:
                yield value, arg.lineno
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            value = node.value.value
            if names & read and isinstance(value, str) and value in modules:
                yield value, node.lineno


def _bound(tree: ast.Module) -> set[str]:
    """Names a package's ``__init__`` binds at module level (imports, defs, assignments)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _is_import_module(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def _known(name: str, modules: dict[str, Path]) -> Iterable[str]:
    if name in modules:
        yield name


def build_graph(root: Path = ROOT, *, parents: bool = True) -> Graph:
    """Read every module under ``root`` with ``ast`` and collect every arrow between them."""
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {_module_name(path, root): path for path in files}
    trees = {
        name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, path in modules.items()
    }
    bound = {name: _bound(trees[name]) for name, path in modules.items() if _is_package(path)}
    arrows: set[Arrow] = set()
    for name, path in modules.items():
        tree = trees[name]
        for node, kind in _walk(tree, "module"):
            dynamic = isinstance(node, ast.Call)
            for target in _targets(node, name, _is_package(path), modules, bound):
                if target != name:
                    line = getattr(node, "lineno", 0)
                    arrows.add(Arrow(name, target, "dynamic" if dynamic else kind, line))
        for target, line in _tabled(tree, modules):
            if target != name:
                arrows.add(Arrow(name, target, "dynamic", line))
    for arrow in list(arrows) if parents else []:
        for parent in _parents(arrow.target):
            if parent in modules and not _inside(arrow.source, parent):
                arrows.add(Arrow(arrow.source, parent, "parent", arrow.line))
    return Graph(modules, sorted(arrows, key=lambda a: (a.source, a.target, a.line)))


def _parents(module: str) -> list[str]:
    """The packages below ``llmbridge`` that Python runs before ``module``."""
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(2, len(parts))]


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


WALK: tuple[tuple[str, int], ...] = (
    (f"{PACKAGE}.client", 4),
    (f"{PACKAGE}.prompt_tools", 3),
    (f"{PACKAGE}.structured", 3),
    (f"{PACKAGE}.providers", 2),
    (f"{PACKAGE}.stream", 1),
    (f"{PACKAGE}.events", 0),
    (f"{PACKAGE}.response_data", 0),
    (f"{PACKAGE}.messages", 0),
    (f"{PACKAGE}.errors", 0),
)
"""The walk of a request, top down: the client pipeline → its plans (prompt tools, structured
output) → the provider → IO → the shapes every floor shares. An arrow never climbs it."""
PROTOCOL = frozenset(
    {f"{PACKAGE}.providers.base", f"{PACKAGE}.providers.prepared", f"{PACKAGE}.providers.adapter"}
)
"""What IO may import of the provider floor: the provider protocol (a prepared call, and the
adapter that prepares one from a provider of the protocol before ``prepare``)."""


def _rank(module: str) -> int | None:
    for package, rank in WALK:
        if _inside(module, package):
            return rank
    return None


def rule_breaches(graph: Graph) -> list[str]:
    """Arrows that break the named rules of the house (see ``docs/architecture.md``).

    * The walk goes down (``WALK``): no module imports one of a concern higher up the walk
      (``llmbridge.stream`` imports the protocol, ``PROTOCOL``, and nothing
      else of the provider floor).
    * Outside ``llmbridge.prompt_tools``, the prompt tools are reached through its front door only
      (the package itself, ``llmbridge.prompt_tools``).
    """
    found: list[str] = []
    for arrow in graph.arrows:
        if arrow.kind == "parent":
            continue
        broken = []
        source, target = _rank(arrow.source), _rank(arrow.target)
        if source is not None and target is not None and target > source:
            if _inside(arrow.source, f"{PACKAGE}.stream") and _inside(
                arrow.target, f"{PACKAGE}.providers"
            ):
                if arrow.target not in PROTOCOL:
                    broken.append("IO reaches into the provider floor")
            else:
                broken.append("an arrow climbs the walk")
        if (
            _inside(arrow.target, f"{PACKAGE}.prompt_tools")
            and arrow.target != f"{PACKAGE}.prompt_tools"
            and not _inside(arrow.source, f"{PACKAGE}.prompt_tools")
        ):
            broken.append("prompt_tools internals wired from outside")
        if broken:
            where = f"{arrow.source} -> {arrow.target} (line {arrow.line}, {arrow.kind})"
            found.append(f"{'; '.join(broken)}: {where}")
    return found


def _summary(title: str, graph: Graph, breaches: list[str]) -> list[str]:
    floors = graph.floors()
    back = graph.back_arrows()
    pairs = {(a.source, a.target) for a in graph.arrows}
    return [
        f"{title}: {len(graph.modules)} rooms on {max(floors.values(), default=-1) + 1} floors, "
        f"{len(pairs)} arrows, {len(back) + len(breaches)} back up ({len(back)} closing a "
        f"circle, {len(breaches)} breaking a rule), {len(graph.cycles())} circles"
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.import_graph", description=__doc__)
    parser.add_argument("--floors", action="store_true", help="list every module by floor")
    parser.add_argument("--arrows", action="store_true", help="list every arrow")
    parser.add_argument(
        "--no-parents", action="store_true", help="leave out the packages Python runs on the way"
    )
    args = parser.parse_args(argv)
    graph = build_graph(ROOT, parents=not args.no_parents)
    floors = graph.floors()
    cycles = graph.cycles()
    breaches = rule_breaches(graph)
    kinds: dict[str, int] = {}
    for arrow in graph.arrows:
        kinds[arrow.kind] = kinds.get(arrow.kind, 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    lines = [
        *_summary("modules", graph, breaches),
        f"  import sites: {len(graph.arrows)} ({detail})",
        *_summary("folders (a top-level module or package is one room)", graph.rooms(), []),
    ]
    print("\n".join(lines))
    for cycle in cycles:
        print("  circle: " + " -> ".join(m.removeprefix(f"{PACKAGE}.") for m in cycle))
    for breach in breaches:
        print(f"  {breach}")
    if args.floors:
        for level in range(max(floors.values(), default=-1) + 1):
            print(f"floor {level}:")
            for module in sorted(m for m, f in floors.items() if f == level):
                targets = ", ".join(sorted(graph.edges[module]))
                print(f"  {module}" + (f"  <- {targets}" if targets else ""))
    if args.arrows:
        for arrow in graph.arrows:
            print(f"{arrow.source} -> {arrow.target}  ({arrow.kind}, line {arrow.line})")
    return 1 if cycles or breaches else 0


if __name__ == "__main__":
    sys.exit(main())

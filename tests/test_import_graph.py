"""The import graph goes one way (issue 31): no circle, counting every kind of import.

``tests/import_graph.py`` reads every module with ``ast``; ``python -m tests.import_graph``
prints the same graph (rooms, floors, arrows, circles). The checker's own tests build small
packages with each kind of import and check that it sees them, so a circle can't hide.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.import_graph import PACKAGE, ROOT, Graph, build_graph, main, rule_breaches

REPO = ROOT.parent


def _describe(cycles: list[list[str]]) -> str:
    return "\n".join(" -> ".join(cycle) for cycle in cycles)


@pytest.fixture(scope="module")
def graph() -> Graph:
    """llmbridge's graph, read once for the module's checks of it (each read parses ~400
    modules)."""
    return build_graph()


def test_llmbridge_has_no_import_circle(graph: Graph) -> None:
    cycles = graph.cycles()
    assert not cycles, (
        "import circles (module-level, TYPE_CHECKING, function-local, dynamic and package "
        f"__init__ imports counted):\n{_describe(cycles)}"
    )
    assert not graph.back_arrows()


def test_llmbridge_keeps_the_named_rules(graph: Graph) -> None:
    """IO imports only the provider protocol; prompt_tools internals only from inside; the walk
    (client -> plans -> provider -> IO -> shared shapes) never climbs."""
    assert rule_breaches(graph) == []


def test_no_folder_imports_another_that_imports_it_back() -> None:
    """By folder too (a top-level module or package is one room): corridors go one way."""
    rooms = build_graph(parents=False).rooms()
    assert "llmbridge.client" in rooms.modules and "llmbridge.tools" in rooms.modules
    assert not rooms.cycles(), _describe(rooms.cycles())


def test_every_module_is_read(graph: Graph) -> None:
    files = [p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts]
    assert len(graph.modules) == len(files)
    assert {"llmbridge", "llmbridge.client", "llmbridge.events", "llmbridge.stream.transport"} <= (
        graph.modules.keys()
    )
    kinds = {arrow.kind for arrow in graph.arrows}
    assert kinds == {"module", "type-checking", "function", "dynamic", "parent"}


def test_the_script_prints_the_graph_and_exits_0() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tests.import_graph"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    modules, sites, folders = run.stdout.splitlines()[:3]
    assert modules.startswith("modules: ") and modules.endswith(
        "arrows, 0 back up (0 closing a circle, 0 breaking a rule), 0 circles"
    )
    assert sites.startswith("  import sites: ")
    assert folders.startswith("folders (") and folders.endswith(" 0 circles")


@pytest.mark.parametrize(
    "module",
    [
        "llmbridge.client",  # Client, EventStream: now a package
        "llmbridge.sync",
        "llmbridge.structured",
        "llmbridge.providers.http_errors",
    ],
)
def test_old_addresses_still_import(module: str) -> None:
    importlib.import_module(module)


@pytest.mark.parametrize(
    "module", ["llmbridge.partial_json", "llmbridge.tool_options", "llmbridge.tools.spec"]
)
def test_the_test_only_shims_are_gone(module: str) -> None:
    """Issue 42: re-export modules only the project's own tests imported (their names live at
    ``llmbridge.structured.partial_json``, ``llmbridge.client.tool_options``, ``llmbridge``)."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(module)


def test_old_addresses_give_the_same_objects() -> None:
    import llmbridge as lb
    import llmbridge.client
    import llmbridge.providers.http_errors
    import llmbridge.structured
    import llmbridge.sync
    from llmbridge.http_headers import request_id_from
    from llmbridge.structured.formats import response_format_of

    assert llmbridge.client.Client is lb.Client and llmbridge.client.EventStream is lb.EventStream
    assert llmbridge.sync.SyncClient is lb.SyncClient
    assert llmbridge.structured.response_format_of is response_format_of
    assert llmbridge.providers.http_errors.request_id_from is request_id_from
    assert lb.ModelOption.__module__ == "llmbridge.model_refs"


# -- the checker sees every kind of import -------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / PACKAGE
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@pytest.mark.parametrize(
    "import_b",
    [
        "from . import b",
        "from .b import thing",
        "import llmbridge.b",
        "from llmbridge.b import thing",
        "if TYPE_CHECKING:\n    from .b import thing",
        "def later():\n    from .b import thing",
        "class K:\n    def method(self):\n        import llmbridge.b",
        "import importlib\nimportlib.import_module('llmbridge.b')",
    ],
    ids=[
        "from-package",
        "from-module",
        "import",
        "absolute",
        "type-checking",
        "function",
        "method",
        "import_module",
    ],
)
def test_a_circle_is_found_whatever_the_import(tmp_path: Path, import_b: str) -> None:
    root = _package(
        tmp_path,
        {"a.py": f"from typing import TYPE_CHECKING\n{import_b}\n", "b.py": "from .a import x\n"},
    )
    assert build_graph(root).cycles() == [["llmbridge.a", "llmbridge.b", "llmbridge.a"]]


def test_a_circle_through_a_package_init_is_found(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "low.py": "def f():\n    from .pkg.leaf import g\n",
            "pkg/__init__.py": "from .high import h\n",
            "pkg/leaf.py": "",
            "pkg/high.py": "from ..low import f\n",
        },
    )
    assert build_graph(root, parents=False).cycles() == []
    cycles = build_graph(root).cycles()
    assert cycles and set(cycles[0]) == {"llmbridge.low", "llmbridge.pkg", "llmbridge.pkg.high"}


def test_a_front_door_name_is_not_its_submodule(tmp_path: Path) -> None:
    """``from .prompt_tools import plan`` reaches the package's ``plan`` function, bound in its
    ``__init__``, not the ``plan`` submodule; an unbound submodule name is the submodule."""
    root = _package(
        tmp_path,
        {
            "prompt_tools/__init__.py": "from .plan import plan\n",
            "prompt_tools/plan.py": "def plan(): ...\n",
            "prompt_tools/inner.py": "",
            "user.py": "from .prompt_tools import plan\n",
            "nosy.py": "from .prompt_tools import inner\n",
        },
    )
    graph = build_graph(root, parents=False)
    assert graph.edges["llmbridge.user"] == {"llmbridge.prompt_tools"}
    assert graph.edges["llmbridge.nosy"] == {"llmbridge.prompt_tools.inner"}
    assert rule_breaches(graph) == [
        "prompt_tools internals wired from outside: llmbridge.nosy -> llmbridge.prompt_tools.inner "
        "(line 1, module)"
    ]


def test_io_may_import_the_provider_protocol_only(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "providers/__init__.py": "",
            "providers/base.py": "",
            "providers/http_errors.py": "",
            "stream/__init__.py": "",
            "stream/transport.py": "from ..providers.base import P\n"
            "def f():\n    from ..providers.http_errors import request_id_from\n",
        },
    )
    assert rule_breaches(build_graph(root)) == [
        "IO reaches into the provider floor: llmbridge.stream.transport -> "
        "llmbridge.providers.http_errors (line 3, function)"
    ]


def test_an_arrow_up_the_walk_is_a_breach(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "client/__init__.py": "",
            "providers/__init__.py": "",
            "providers/base.py": "def f():\n    from ..client import Client\n",
        },
    )
    assert rule_breaches(build_graph(root)) == [
        "an arrow climbs the walk: llmbridge.providers.base -> llmbridge.client (line 2, function)"
    ]


def test_a_literal_module_path_for_importlib_is_an_arrow(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "registry.py": """
                import importlib
                _TABLE = "llmbridge.plugin"
                GROUP = "llmbridge.other"
                def load(name):
                    return importlib.import_module(_TABLE)
            """,
            "plugin.py": "",
            "other.py": "",
        },
    )
    assert build_graph(root).edges["llmbridge.registry"] == {"llmbridge.plugin"}


def test_the_script_fails_on_a_circle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _package(tmp_path, {"a.py": "from .b import x\n", "b.py": "from .a import y\n"})
    monkeypatch.setattr("tests.import_graph.ROOT", root)
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "1 circles" in out and "circle: a -> b -> a" in out

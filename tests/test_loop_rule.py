"""The loop rule of ``tests/conftest.py``: a test module that cancels, times out, starts tasks
or threads, or opens sockets or processes runs on every loop it may behave differently on; a
sans-IO module runs on one. A new module that starts depending on the loop without saying so
fails here, naming the module and what it uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import IO_MODULES, LOOP_MODULES, LOOPS, ONE_LOOP, loops_for

TESTS = Path(__file__).resolve().parent
ASYNC_TESTS = re.compile(r"pytest\.mark\.anyio|anyio_backend")
# What behaves differently on asyncio, uvloop and trio.
LOOP_SENSITIVE = re.compile(
    r"create_task_group|fail_after|move_on_after|CancelScope|\.cancel\(|to_thread"
    r"|open_process|subprocess|socket|connect_stdio|http_server|chat_server|loopback"
)
# Modules whose loop-dependent code is in their sync tests only (their async tests are sans-IO).
SYNC_ONLY = {
    "examples/test_examples_scripts.py": "sync tests run the scripts; the async one replays",
    "test_hardening.py": "the socket is the SyncClient Ctrl-C test's (a sync test)",
}
DECIDED_PER_TEST = re.compile(r"pytest\.mark\.(loops|io)\b|\"anyio_backend\"")


def _async_modules() -> list[Path]:
    return sorted(
        p
        for p in TESTS.rglob("test_*.py")
        if p != Path(__file__) and ASYNC_TESTS.search(p.read_text(encoding="utf-8"))
    )


class _Node:
    """Stands in for a test without markers (the module's own rule)."""

    def get_closest_marker(self, name: str) -> None:
        return None


def test_modules_that_depend_on_the_loop_run_on_more_than_one() -> None:
    undeclared = {}
    for path in _async_modules():
        source = path.read_text(encoding="utf-8")
        used = sorted(set(LOOP_SENSITIVE.findall(source)))
        name = str(path.relative_to(TESTS))
        if not used or name in SYNC_ONLY or DECIDED_PER_TEST.search(source):
            continue
        if loops_for(_Node(), str(path)) == ONE_LOOP:  # type: ignore[arg-type]
            undeclared[name] = used
    assert not undeclared, (
        "these modules use loop-dependent code but run on one loop: add them to IO_MODULES or "
        f"LOOP_MODULES in tests/conftest.py, or mark their tests 'loops' / 'io': {undeclared}"
    )


def test_every_listed_module_exists() -> None:
    paths = [str(p) for p in TESTS.rglob("*.py")]
    for name in IO_MODULES + LOOP_MODULES:
        assert any(name in p for p in paths), f"{name} matches no test module"


@pytest.mark.parametrize(
    ("module", "loops"),
    [
        ("tests/test_fixtures.py", ("asyncio",)),
        ("tests/test_client.py", ("asyncio", "trio")),
        ("tests/test_http_stack.py", tuple(LOOPS)),
        ("tests/reliability/test_total_timeout.py", tuple(LOOPS)),
    ],
)
def test_the_rule_by_module(module: str, loops: tuple[str, ...]) -> None:
    assert loops_for(_Node(), str(TESTS.parent / module)) == loops  # type: ignore[arg-type]


def test_markers_widen_or_name_the_loops() -> None:
    class Marked(_Node):
        def __init__(self, mark: pytest.MarkDecorator) -> None:
            self.mark = mark.mark

        def get_closest_marker(self, name: str) -> pytest.Mark | None:  # type: ignore[override]
            return self.mark if name == self.mark.name else None

    sans_io, io = str(TESTS / "test_fixtures.py"), str(TESTS / "test_http_stack.py")
    assert loops_for(Marked(pytest.mark.loops), sans_io) == ("asyncio", "trio")  # type: ignore[arg-type]
    assert loops_for(Marked(pytest.mark.io), sans_io) == tuple(LOOPS)  # type: ignore[arg-type]
    assert loops_for(Marked(pytest.mark.loops("asyncio")), io) == ("asyncio",)  # type: ignore[arg-type]

"""Shared test setup: real network is blocked unless a test is marked ``live``."""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from _pytest.nodeid import NodeId
from hypothesis import HealthCheck, settings

from tests import corpus

# Compiled modules are kept between processes even where PYTHONDONTWRITEBYTECODE is set (as on
# the CI machines): else every xdist worker, and every later run, compiles the tests and
# rewrites the asserts of ~740 modules again (collection: 14.7 s per process, 8 s with the
# cache). They go to ``__pycache__`` (git-ignored), where Python keeps them by default and where
# the subprocesses the tests start read them (the setting stops writing, not reading).
# (PYTHONPYCACHEPREFIX would keep the checkout bare, but it moves every lookup, the installed
# packages' too: each subprocess would compile httpx and pydantic again, 0.33 s -> 0.9 s.)
sys.dont_write_bytecode = False

# Hypothesis measures the wall clock twice: a 200 ms deadline per example and the "too_slow"
# health check of data generation. On a busy machine both fail a test for the machine's sake
# (DeadlineExceeded, Flaky, FailedHealthCheck), so neither is used: what a property test checks
# is its assertions; CPU-bound guards elsewhere read time.process_time().
settings.register_profile("llmbridge", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("llmbridge")

# The cyclic collector runs after 50,000 new objects rather than 700: the suite builds many
# short-lived objects (pydantic models, hypothesis examples, parsed recordings) and a collection
# every 700 cost ~7 % of its CPU. A test that needs the garbage gone calls ``gc.collect()``.
gc.set_threshold(50_000, 20, 20)

_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and (host in ("localhost", "::1") or host.startswith("127.")):
        return _real_connect(self, address)
    if self.family == socket.AF_UNIX:
        return _real_connect(self, address)
    raise RuntimeError(f"tests may not reach the network ({address!r}); mark the test 'live'")


@pytest.fixture(autouse=True)
def _block_network(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("live") and os.environ.get("LLMBRIDGE_LIVE"):
        yield
        return
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]


_SIGINT = signal.getsignal(signal.SIGINT)
"""What Ctrl-C does in this process when the run starts (see ``ctrl_c``)."""


def _sigint_state() -> tuple[Any, bool]:
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return signal.getsignal(signal.SIGINT), blocked


def _put_back_sigint(handler: Any) -> None:
    signal.signal(signal.SIGINT, handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as a terminal gives it, for a test that sends SIGINT (to itself or to a process
    it starts): a ``KeyboardInterrupt``, not blocked. A run started with SIGINT ignored (a
    shell's ``cmd &`` without job control, ``nohup``, some CI runners) passes the ignored
    signal on to every process it starts (through ``exec``): without this the Ctrl-C tests
    fail there, and only there."""
    before, _ = _sigint_state()
    _put_back_sigint(signal.default_int_handler)
    try:
        yield
    finally:
        if before is not None:  # None: not set from Python, nothing to put back
            signal.signal(signal.SIGINT, before)


@pytest.fixture(autouse=True)
def _sigint_left_alone(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test (or a library it runs in this process) that leaves SIGINT changed would change
    it for every later test of the worker and the processes they start: it is put back and a
    warning names the test."""
    yield
    if threading.current_thread() is not threading.main_thread():
        return
    handler, blocked = _sigint_state()
    if (handler is _SIGINT or _SIGINT is None) and not blocked:
        return
    _put_back_sigint(_SIGINT if _SIGINT is not None else handler)
    what = "blocked" if blocked else repr(handler)
    warnings.warn(f"{request.node.nodeid} left SIGINT {what}; put back", stacklevel=1)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than there are cores. A third of a worker's time is spent
    waiting (MCP and model servers starting and answering, timeouts that are the point of a
    test), and the extra worker runs meanwhile: on 2 cores the suite took 5:24 with two workers
    and 4:59 with three. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which would answer first
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` without xdist's per-test scans of all the work given so far
    (``tests/xdist_scheduling.py``: ~25 s of the controller's CPU in a full run)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.xdist_scheduling import LinearLoadGroupScheduling

    return LinearLoadGroupScheduling(config, log)


def pytest_collection_finish(session: pytest.Session) -> None:
    """With MCP tests to run here, start this process's warm starter for the MCP test servers
    (``tests/tools/mcp_zygote.py``: ~0.9 s of CPU saved per server start, ~150 per run)."""
    import importlib.util

    if os.environ.get("LLMBRIDGE_TESTS_COLD_MCP") == "1" or not sys.platform.startswith("linux"):
        return  # every server starts cold
    if importlib.util.find_spec("mcp") is None:
        return
    if any(
        "mcp" in item.nodeid or item.nodeid.startswith("tests/tools/") for item in session.items
    ):
        from tests.tools import mcp_zygote

        mcp_zygote.start(os.getpid())


@pytest.hookimpl(trylast=True)  # after xdist's own hook of this name
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` (``addopts``) on pytest 9.2: xdist 3.8 tells the scheduler a test's
    ``xdist_group`` by appending ``@<group>`` to ``item._nodeid``, which pytest 9.2 no longer
    reads (the id is structured, ``item._id``), so every group was spread over all workers and
    each started its own llama-server (pytest-dev/pytest-xdist#1386; the fix, #1388, is not
    released). Append it where it is missing, as that fix does; a no-op once xdist does it."""
    if not config.getoption("loadgroup", default=False):  # set on xdist's workers only
        return
    for item in items:
        groups = sorted(
            {
                str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                for m in item.iter_markers("xdist_group")
            }
        )
        if groups and "@" not in item.nodeid.rpartition("]")[2] and hasattr(item, "_id"):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    corpus.gate(item)  # a test marked corpus.needed: skipped locally, failed under CI


def pytest_terminal_summary(terminalreporter: Any) -> None:
    corpus.summary(terminalreporter)  # one loud line: how many tests the absent corpus skipped


@pytest.fixture
def fake_registered() -> None:
    """The fake provider of ``tests/fakes.py`` under the name ``fake`` (``fake:model``); a module
    uses it with ``pytestmark = pytest.mark.usefixtures("fake_registered")``."""
    from llmbridge.providers import register_provider
    from tests.fakes import FakeProvider

    register_provider("fake", FakeProvider, replace=True)


@pytest.fixture(scope="module")
def young_heap() -> Iterator[None]:
    """For a module whose tests call ``gc.collect()`` (to see that nothing is left for the
    collector): what earlier tests of the worker left is collected once and frozen
    (``gc.freeze``), so each ``gc.collect()`` of the module scans only what its own tests made
    -- a fraction of the heap -- and a ``ResourceWarning`` it sees is the module's own, never an
    earlier test's garbage. Used as ``pytestmark = pytest.mark.usefixtures("young_heap")``."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


LOOPS: dict[str, Any] = {
    "asyncio": "asyncio",
    "uvloop": ("asyncio", {"use_uvloop": True}),
    "trio": "trio",
}
"""Every event loop users run."""

# Which loops an async test runs on (``pytest_generate_tests`` below; the rule is checked by
# ``tests/test_loop_rule.py``):
#
# * ``io``: real sockets, subprocesses, servers -- asyncio, uvloop and trio. The modules whose
#   path contains a name in ``IO_MODULES``, and any test marked ``@pytest.mark.io``.
# * ``loops``: code whose behaviour depends on the loop without a socket: cancellation,
#   timeouts, task groups, worker threads, the pytest plug-in, the sync client's loop --
#   asyncio and trio. The modules in ``LOOP_MODULES``, and any test marked
#   ``@pytest.mark.loops``.
# * everything else, a sans-IO test that is ``async`` only because the API is (a replay through
#   ``httpx.MockTransport``, a decoder fed bytes), runs once, on asyncio.
# * ``@pytest.mark.loops("asyncio")`` (names given): those loops only, e.g. a real model's
#   answer in an IO module, whose IO path other tests of the module run on every loop.
# * a test that parametrizes ``anyio_backend`` itself chooses its own loops (e.g. every
#   provider on asyncio, one provider per wire family on every loop).
IO_MODULES = (
    "test_http_stack",
    "test_loopback_io",
    "live_local",
    "reliability/test_bounds",
    "reliability/test_fallback_models_io",
    "reliability/test_faults_providers",
    "reliability/test_lifecycle_pools",
    "reliability/test_load_concurrent_streams",
    "reliability/test_mcp_descendants",
    "reliability/test_recording_encoded",
    "reliability/test_request_count",
    "reliability/test_resume_background",
    "reliability/test_secret_leaks_",
    "reliability/test_sse_empty_and_nul",
    "reliability/test_total_timeout",
    "mcp_servers",
    "mcp_interact",
    "mcp_resources",
    "mcp_remote",
    "test_tools_mcp_hostile",  # hostile MCP servers over stdio
)
LOOP_MODULES = (
    "/test_client.py",  # the one IO path: retry sleeps, cancellation, closing a stream
    "/test_model_chain.py",  # a switch closes the failed stream, closing early
    "test_openai_responses_background",  # cancelled and resumed streams
    "/test_telemetry.py",  # spans of cancelled streams
    "/tools/test_tools_loop.py",  # one turn's calls run concurrently
    "test_tools_registry",  # timeouts, task groups, worker threads
    "test_tools_approval",  # the approver runs in a worker thread
    "/tools/test_tools_mcp.py",  # MCP servers: subprocesses and HTTP
    "test_tools_mcp_failures",
    "test_tools_mcp_interact_units",
    "test_tools_mcp_review",
    "test_tools_mcp_sampling",
    "/test_ndjson.py",  # the loop turns between batches of lines
    "/tools/test_tools_bounds.py",  # how many tool bodies run at once
)
ONE_LOOP = ("asyncio",)
TWO_LOOPS = ("asyncio", "trio")


def loops_for(node: pytest.Function | pytest.Module, module: str) -> tuple[str, ...]:
    """The names of the loops a test (or every test of a module) runs on, by the rule above."""
    marker = node.get_closest_marker("loops")
    if marker is not None and marker.args:  # @pytest.mark.loops("asyncio"): these loops only
        return tuple(marker.args)
    if node.get_closest_marker("io") or any(m in module for m in IO_MODULES):
        return tuple(LOOPS)
    if marker is not None or any(m in module for m in LOOP_MODULES):
        return TWO_LOOPS
    return ONE_LOOP


@pytest.fixture
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    """The loop a test runs on: parametrized by ``pytest_generate_tests`` below (this
    definition hides anyio's own, whose parameters would clash)."""
    return request.param


def _parametrizes_the_loop(metafunc: pytest.Metafunc) -> bool:
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",")]
        if "anyio_backend" in names:
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``anyio_backend``: the loops of the rule above."""
    if "anyio_backend" not in metafunc.fixturenames or _parametrizes_the_loop(metafunc):
        return
    names = loops_for(metafunc.definition, str(metafunc.module.__file__))
    metafunc.parametrize("anyio_backend", [LOOPS[n] for n in names], ids=list(names))

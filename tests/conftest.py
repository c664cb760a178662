"""Shared test setup: real network is blocked unless a test is marked ``live``."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests import corpus

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


def pytest_runtest_setup(item: pytest.Item) -> None:
    corpus.gate(item)  # a test marked corpus.needed: skipped locally, failed under CI


def pytest_terminal_summary(terminalreporter: Any) -> None:
    corpus.summary(terminalreporter)  # one loud line: how many tests the absent corpus skipped


LOOPS: dict[str, Any] = {
    "asyncio": "asyncio",
    "uvloop": ("asyncio", {"use_uvloop": True}),
    "trio": "trio",
}
"""Every event loop users run: the IO suite (real sockets) runs on each."""
IO_MODULES = (
    "test_http_stack",
    "test_loopback_io",
    "reliability",
    "live_local",
    "mcp_servers",
    "mcp_interact",
    "mcp_resources",
    "mcp_remote",
)


@pytest.fixture
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    """The loop a test runs on: parametrized by ``pytest_generate_tests`` below (this
    definition hides anyio's own, whose parameters would clash)."""
    return request.param


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``anyio_backend``: asyncio and trio everywhere, uvloop too for the IO suite."""
    if "anyio_backend" not in metafunc.fixturenames:
        return
    module = str(metafunc.module.__file__)
    names = list(LOOPS) if any(m in module for m in IO_MODULES) else ["asyncio", "trio"]
    metafunc.parametrize("anyio_backend", [LOOPS[n] for n in names], ids=names)

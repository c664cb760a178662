"""The live_local tier: a real llama.cpp server with a real model (skips when absent)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.live_local.server import Server, start_server


@pytest.fixture(scope="session")
def llama() -> Iterator[Server]:
    server = start_server()
    yield server
    server.kill()


@pytest.fixture
def npx() -> str:
    """The ``npx`` that runs ``EVERYTHING`` (MCP's reference server); skips without node."""
    found = shutil.which("npx")
    if found is None:
        pytest.skip("npx (node) is not installed")
    return found


# tryfirst: xdist's worker reads ``xdist_group`` in its own hook of this name, which runs
# before a conftest's otherwise (it registers later), and the marks would come too late
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "live_local" in str(item.fspath):
            item.add_marker(pytest.mark.live_local)
        # one llama-server, on one worker: the modules that start their own (with other
        # flags) and every test of the session's ``llama`` (else a second worker starts a
        # second one, and two models share the cores a test's answer waits on)
        uses_llama = "llama" in getattr(item, "fixturenames", ())
        if uses_llama or "live_local/test_llama" in str(item.fspath):
            item.add_marker(pytest.mark.xdist_group("llama-server"))

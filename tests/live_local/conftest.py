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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "live_local" in str(item.fspath):
            item.add_marker(pytest.mark.live_local)
        if "live_local/test_llama" in str(item.fspath):  # one llama-server, on one worker
            item.add_marker(pytest.mark.xdist_group("llama-server"))

"""The live_local tier: a real llama.cpp server with a real model (skips when absent)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live_local.server import Server, start_server


@pytest.fixture(scope="session")
def llama() -> Iterator[Server]:
    server = start_server()
    yield server
    server.kill()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "live_local" in str(item.fspath):
            item.add_marker(pytest.mark.live_local)

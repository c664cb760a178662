"""Fixtures shared by the MCP tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.tools.mcp_helpers import INTERACT_SERVER, http_server


@pytest.fixture(scope="module")
def interact_web() -> Iterator[tuple[str, int]]:
    """``mcp_interact_server.py`` over streamable HTTP: its URL and port (one per test module)."""
    with http_server(INTERACT_SERVER) as started:
        yield started


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """A list for the processes a test starts: those still running at its end are killed, and
    all are reaped."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()

"""Fixtures shared by the MCP tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tools.mcp_helpers import INTERACT_SERVER, http_server


@pytest.fixture(scope="module")
def interact_web() -> Iterator[tuple[str, int]]:
    """``mcp_interact_server.py`` over streamable HTTP: its URL and port (one per test module)."""
    with http_server(INTERACT_SERVER) as started:
        yield started

"""MCP against the reference test server (``@modelcontextprotocol/server-everything`` over stdio,
through npx), on every loop: tool list, echo, sums, image results, a long-running tool, errors."""

from __future__ import annotations

import contextlib
import shutil
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.fallback.dialects import FUNCTION_CALL
from llmbridge.fallback.instructions import instructions_size
from llmbridge.tools import ToolRegistry
from llmbridge.tools.mcp import MCPError, MCPToolError, connect_stdio

pytestmark = pytest.mark.anyio

SERVER = ("npx", ["-y", "@modelcontextprotocol/server-everything"])


@pytest.fixture
def npx() -> str:
    found = shutil.which("npx")
    if found is None:
        pytest.skip("npx (node) is not installed")
    return found


async def test_server_everything_round_trip(npx: str) -> None:
    async with contextlib.AsyncExitStack() as stack:
        try:  # npx fetches the package from the npm registry: a machine without it skips
            server = await stack.enter_async_context(connect_stdio(npx, SERVER[1], timeout=120))
        except MCPError as exc:
            pytest.skip(f"server-everything could not be started here: {exc}")
        with anyio.fail_after(60):
            tools = await server.list_tools()
            names = {t.name for t in tools}
            assert {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"} <= names
            registry = ToolRegistry(tools)
            echoed: Any = await registry.acall("echo", {"message": "héllo"})
            assert "héllo" in echoed.content[0].text
            summed: Any = await registry.acall("get-sum", {"a": 2, "b": 3.5})
            assert "5.5" in summed.content[0].text
            image: Any = await registry.acall("get-tiny-image", {})
            pictures = [p for p in image.content if isinstance(p, lb.ImagePart)]
            assert pictures and pictures[0].media_type == "image/png" and pictures[0].data
            long: Any = await registry.acall(
                "trigger-long-running-operation", {"duration": 1, "steps": 2}
            )
            assert long.content
            with pytest.raises((MCPToolError, lb.ToolArgumentsError)):
                await registry.acall("get-sum", {"a": "not a number"})
            fixed, per_tool = instructions_size(registry.specs(), dialect=FUNCTION_CALL)
    # The prompt fallback with all 13 tools must leave room in a 2,048-token context.
    assert fixed + sum(per_tool.values()) < 5_000, (fixed, per_tool)

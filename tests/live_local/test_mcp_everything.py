"""MCP against the reference test server (``@modelcontextprotocol/server-everything`` over stdio,
through npx), on every loop: tool list, echo, sums, image results, a long-running tool, errors."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPError, MCPToolError, connect_stdio
from llmbridge.prompt_tools.dialects import FUNCTION_CALL
from llmbridge.prompt_tools.instructions import instructions_size
from llmbridge.tools import ToolRegistry
from tests.live_local.server import EVERYTHING
from tests.tools.mcp_helpers import FEATURE_LOOPS

pytestmark = pytest.mark.anyio


async def test_server_everything_round_trip(npx: str) -> None:
    async with contextlib.AsyncExitStack() as stack:
        try:  # npx fetches the package from the npm registry: a machine without it skips
            # elicit=False: the two tools server-everything adds when elicitation is offered
            # (~1,500 characters of instructions) do not fit the budget below (docs/tools.md)
            server = await stack.enter_async_context(
                connect_stdio(npx, EVERYTHING, timeout=120, elicit=False)
            )
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


@FEATURE_LOOPS
async def test_everything_with_two_mcp_package_servers_in_one_config(npx: str) -> None:
    """server-everything (npm), a stdio and a streamable-HTTP server written with the ``mcp``
    package, in one config: one registry, prompts, resource links, no process left behind."""
    import sys

    from tests.tools.mcp_helpers import APP_SERVER, descendants, http_app_server

    with http_app_server("web") as (url, web_pid):
        config = {
            "mcpServers": {
                "everything": {"command": npx, "args": EVERYTHING, "startup_timeout": 120},
                "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
                "web": {"url": url, "allowed_tools": ["search"]},
            }
        }
        before = descendants(exclude={web_pid})
        with anyio.fail_after(150):
            async with lb.connect_mcp_servers(config) as servers:
                if "everything" in servers.failures:
                    pytest.skip(f"server-everything could not start: {servers.failures}")
                assert servers.failures == {}
                registry = servers.registry
                assert registry.server_of("echo") == "everything"
                assert registry.server_of("alpha__search") == "alpha"
                assert registry.server_of("web__search") == "web"
                echoed: Any = await registry.acall("echo", {"message": "hi"})
                assert "hi" in echoed.content[0].text
                links: Any = await registry.acall("get-resource-links", {"count": 2})
                texts = [p.text for p in links.content if isinstance(p, lb.TextPart)]
                assert sum(t.startswith("[resource link]") for t in texts) == 2
                found: Any = await registry.acall("web__search", {"query": "x"})
                assert found.content[0].text == "web found x"
                everything = servers.subset(servers=["everything"])
                assert "echo" in everything and "alpha__search" not in everything
                prompts = {(p.server, p.name) for p in await servers.list_prompts()}
                assert {("everything", "args-prompt"), ("alpha", "greet")} <= prompts
                filled = await servers.get_prompt("everything", "args-prompt", {"city": "Paris"})
                assert filled and "Paris" in filled[0].text
        assert descendants(exclude={web_pid}) == before  # npx and node are gone too


@pytest.mark.loops("asyncio")  # the model's answer (the MCP IO: on every loop above)
async def test_sampling_is_answered_by_the_real_llama_server(llama: Any) -> None:
    """A server's ``sampling/createMessage`` answered by a real model (llama-server), after the
    app approved it."""
    import sys

    from tests.tools.mcp_helpers import APP_SERVER

    asked: list[lb.ToolApprovalRequest] = []

    def approve(request: lb.ToolApprovalRequest) -> bool:
        asked.append(request)
        return True

    config = {
        "mcpServers": {
            "alpha": {
                "command": sys.executable,
                "args": [APP_SERVER, "a", "stdio"],
                # the model answers within the call: on a loaded machine (the suite's other
                # worker, a second server) that can take longer than the 60 s default
                "tool_timeout": 240,
            }
        }
    }
    client = lb.Client(
        providers={"llamacpp": {"base_url": llama.base_url}},
        retry=lb.RetryPolicy(max_attempts=1),
    )
    async with client:
        with anyio.fail_after(300):
            async with lb.connect_mcp_servers(
                config, client=client, sampling_model="llamacpp:gemma", approve=approve
            ) as servers:
                answer: Any = await servers.registry.acall("ask_llm", {"question": "Say hello."})
    text = answer.content[0].text
    assert text.startswith("model ") and " said: " in text and text.split(" said: ", 1)[1].strip()
    assert [(a.kind, a.server) for a in asked] == [("sampling", "alpha")]

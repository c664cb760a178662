"""One ``tools=`` list of any mix (issue 44, item 6): an MCP hub (or its registry), local
functions and specs together in ``run``; names stay unique; ``stream`` takes the same list.
The hub is the app server over streamable HTTP, one per module: what is tested is the mix,
not the transport."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from tests.fakes import chat_sse, mock_client
from tests.tools.mcp_helpers import FEATURE_LOOPS, http_app_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def alpha() -> Iterator[dict[str, Any]]:
    """The config of one server, ``alpha``."""
    with http_app_server("alpha") as (url, _):
        yield {"mcpServers": {"alpha": {"url": url}}}


@lb.tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"Sunny in {city}"


def _call(*calls: tuple[str, dict[str, Any]]) -> httpx.Response:
    deltas = [
        {"tool_calls": [{"index": i, "id": f"c{i}", "type": "function",
                         "function": {"name": name, "arguments": json.dumps(args)}}]}
        for i, (name, args) in enumerate(calls)
    ]  # fmt: skip
    body = chat_sse(*deltas, finish="tool_calls")
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def _model(seen: list[dict[str, Any]]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        if len(seen) == 1:
            return _call(("search", {"query": "llmbridge"}), ("get_weather", {"city": "Oslo"}))
        body = chat_sse({"content": "Done."})
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return handler


@FEATURE_LOOPS
@pytest.mark.parametrize("hub", ["servers", "registry"])
async def test_an_mcp_hub_and_local_functions_in_one_list(hub: str, alpha: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []
    client = lb.Client(
        http_client=mock_client(_model(seen)), providers={"openai": {"api_key": "k"}}
    )
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(alpha) as servers:
            mcp = servers if hub == "servers" else servers.registry
            loop = client.run(
                "openai:gpt-4.1-mini", [lb.ChatMessage.user("go")], tools=[mcp, get_weather]
            )
            results = [e async for e in loop if isinstance(e, lb.ToolResult)]
    offered = {t["function"]["name"] for t in seen[0]["tools"]}
    assert {"search", "whoami", "get_weather"} <= offered
    texts = {r.name: r.message.tool_results[0].text for r in results}
    assert texts["get_weather"] == "Sunny in Oslo" and "llmbridge" in texts["search"]
    assert loop.messages[-1].text == "Done."


@FEATURE_LOOPS
async def test_two_tools_of_one_name_are_refused(alpha: dict[str, Any]) -> None:
    client = lb.Client(http_client=mock_client(_model([])), providers={"openai": {"api_key": "k"}})

    @lb.tool
    def search(query: str) -> str:
        """A local search named like alpha's."""
        return query

    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(alpha) as servers:
            with pytest.raises(lb.UsageError, match="search"):
                loop = client.run("openai:m", [lb.ChatMessage.user("go")], tools=[servers, search])
                async for _ in loop:
                    pass


@FEATURE_LOOPS
async def test_stream_takes_the_same_mix(alpha: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []
    client = lb.Client(
        http_client=mock_client(_model(seen)), providers={"openai": {"api_key": "k"}}
    )
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(alpha) as servers:
            async for _ in client.stream(
                "openai:m", [lb.ChatMessage.user("go")], tools=[servers, get_weather]
            ):
                pass
    assert {"search", "get_weather"} <= {t["function"]["name"] for t in seen[0]["tools"]}

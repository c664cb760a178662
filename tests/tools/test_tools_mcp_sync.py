"""``SyncClient.connect_mcp_servers``: the many-servers context from blocking code."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from tests.fakes import FakeProvider, mock_client, sse_body, sse_response
from tests.tools.mcp_helpers import APP_SERVER, descendants


def test_servers_from_a_sync_script() -> None:
    def handler(request: Any) -> Any:
        return sse_response(sse_body({"text": "hello from the app"}, {"finish": "stop"}))

    def approve(request: lb.ToolApprovalRequest) -> bool:
        time.sleep(0.01)  # a blocking approver (input()) runs in a worker thread
        return True

    config = {
        "mcpServers": {"alpha": {"command": sys.executable, "args": [APP_SERVER, "a", "stdio"]}}
    }
    before = descendants()
    with lb.SyncClient(http_client=mock_client(handler)) as client:
        with client.connect_mcp_servers(
            config, sampling_model=(FakeProvider(), "fake-2"), approve=approve
        ) as servers:
            assert servers.failures == {} and "whoami" in servers.registry
            assert servers.call("search", {"query": "q"}).content[0].text == "a found q"
            answer = servers.call("ask_llm", {"question": "hi?"})  # sampling on the client's loop
            assert answer.content[0].text == "model fake-2 said: hello from the app"
            [prompt] = servers.list_prompts()
            assert [m.text for m in servers.get_prompt("alpha", prompt.name, {"who": "Bo"})] == [
                "Say hi to Bo.",
                "Hi!",
            ]
            servers.refresh()
            assert servers.subset(servers=["alpha"]).names == servers.registry.names
            assert len(descendants() - before) == 1
    assert descendants() == before

"""The model an MCP app test records against (no key, no network): an OpenAI-compatible
endpoint (``httpx.MockTransport``) that first calls the tools a script names, then answers
with the tool results it was sent, so a replay that served other MCP results fails."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.fakes import chat_sse

__all__ = ["AppModel"]


class AppModel(httpx.MockTransport):
    """Turn 1: call ``calls`` (``(tool, arguments)`` pairs); turn 2: say the results."""

    def __init__(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.calls = calls
        super().__init__(self._answer)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        messages = json.loads(request.content)["messages"]
        results = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        if results:
            body = chat_sse({"content": "Results: " + " | ".join(results)})
        else:
            deltas = [
                {"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                 "function": {"name": name, "arguments": json.dumps(args)}}]}
                for i, (name, args) in enumerate(self.calls)
            ]  # fmt: skip
            body = chat_sse(*deltas, finish="tool_calls")
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

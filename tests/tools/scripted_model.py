"""A scripted OpenAI-compatible chat endpoint (httpx ``MockTransport``) for MCP tests that need
the app's model: sampling answered by it, or a tool loop driving servers."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

import llmbridge as lb


def chat_chunks(*chunks: dict[str, Any]) -> bytes:
    body = b"".join(
        b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", **c}) + b"\n\n"
        for c in chunks
    )
    return body + b"data: [DONE]\n\n"


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> bytes:
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
    }
    return chat_chunks(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    )


def said(words: str, finish: str = "stop") -> bytes:
    return chat_chunks(
        {"model": "served-model", "choices": [{"index": 0, "delta": {"content": words}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    )


class Model:
    """An OpenAI-compatible endpoint answering from a script, keeping each request body."""

    def __init__(self, *bodies: bytes) -> None:
        self.bodies = list(bodies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(orjson.loads(request.content))
        body = self.bodies.pop(0)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    def client(self, **options: Any) -> lb.Client:
        http = httpx.AsyncClient(transport=httpx.MockTransport(self))
        return lb.Client(http_client=http, providers={"openai": {"api_key": "sk-x"}}, **options)

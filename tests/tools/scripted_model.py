"""A scripted OpenAI-compatible chat endpoint (httpx ``MockTransport``) for MCP tests that need
the app's model: sampling answered by it, or a tool loop driving servers), and the streams of
other wires the tool-search tests script (named SSE events, an Anthropic Messages turn)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

import llmbridge as lb
from tests.fakes import named_sse, sse_body

__all__ = ["Model", "anthropic_turn", "chat_chunks", "named_sse", "said", "tool_call"]


def chat_chunks(*chunks: dict[str, Any]) -> bytes:
    return sse_body(
        *({"id": "c", "object": "chat.completion.chunk", **c} for c in chunks), done=True
    )


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


def anthropic_turn(*blocks: dict[str, Any], stop: str) -> bytes:
    """A Messages stream of ``blocks`` (given whole; tool input streamed as JSON deltas)."""
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
             "model": "claude-sonnet-4-6", "stop_reason": None,
             "usage": {"input_tokens": 10, "output_tokens": 1}}  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "text", "text": ""}})  # fmt: skip
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {**block, "input": {}}})  # fmt: skip
            delta = {
                "type": "input_json_delta",
                "partial_json": orjson.dumps(block["input"]).decode(),
            }
        events.append({"type": "content_block_delta", "index": i, "delta": delta})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop},
                   "usage": {"output_tokens": 5}})  # fmt: skip
    events.append({"type": "message_stop"})
    return named_sse(*events)

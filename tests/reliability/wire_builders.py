"""Hand-built response bodies in each wire family, for sizes no fixture has (1,000 tool calls).

Each builder returns SSE bytes framed as the provider frames them; call ``i`` is named
``lookup`` with arguments ``{"i": i}``, sent in two fragments where the format streams them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["BUILDERS"]


def _data(obj: Any, *, event: str | None = None, sep: bytes = b"\n\n") -> bytes:
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + orjson.dumps(obj) + sep


def chat_calls(n: int) -> bytes:
    base = {"id": "chatcmpl-rel", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _data({**base, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": None})]
    for i in range(n):
        fn = {"name": "lookup", "arguments": '{"i": '}
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": i, "id": f"call_{i}", "type": "function", "function": fn}
                    ]
                }
            )
        )
        out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": f"{i}}}"}}]}))
    out.append(chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 10, "completion_tokens": 5 * n, "total_tokens": 10 + 5 * n}
    out.append(_data({**base, "choices": [], "usage": usage}))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def anthropic_calls(n: int) -> bytes:
    message = {
        "id": "msg_rel",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    out = [_data({"type": "message_start", "message": message}, event="message_start")]
    for i in range(n):
        block = {"type": "tool_use", "id": f"toolu_{i:04d}", "name": "lookup", "input": {}}
        start = {"type": "content_block_start", "index": i, "content_block": block}
        out.append(_data(start, event="content_block_start"))
        for part in ('{"i": ', f"{i}}}"):
            delta = {"type": "input_json_delta", "partial_json": part}
            body = {"type": "content_block_delta", "index": i, "delta": delta}
            out.append(_data(body, event="content_block_delta"))
        out.append(_data({"type": "content_block_stop", "index": i}, event="content_block_stop"))
    final = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 5 * n},
    }
    out.append(_data(final, event="message_delta"))
    out.append(_data({"type": "message_stop"}, event="message_stop"))
    return b"".join(out)


def gemini_calls(n: int) -> bytes:
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5 * n, "totalTokenCount": 10 + 5 * n}
    out = []
    for i in range(n):
        part = {"functionCall": {"name": "lookup", "args": {"i": i}}}
        cand: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if i == n - 1:
            cand["finishReason"] = "STOP"
        body = {"candidates": [cand], "usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}
        out.append(_data(body, sep=b"\r\n\r\n"))
    return b"".join(out)


def responses_calls(n: int) -> bytes:
    seq = iter(range(10**9))
    resp: dict[str, Any] = {
        "id": "resp_rel",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "gpt-5-mini",
        "output": [],
        "usage": None,
    }

    def ev(kind: str, **fields: Any) -> bytes:
        return _data({"type": kind, **fields, "sequence_number": next(seq)}, event=kind)

    out = [ev("response.created", response=resp)]
    items = []
    for i in range(n):
        item = {
            "id": f"fc_{i}",
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": f"call_{i}",
            "name": "lookup",
        }
        out.append(ev("response.output_item.added", output_index=i, item=item))
        for part in ('{"i": ', f"{i}}}"):
            out.append(
                ev(
                    "response.function_call_arguments.delta",
                    item_id=f"fc_{i}",
                    output_index=i,
                    delta=part,
                )
            )
        args = f'{{"i": {i}}}'
        out.append(
            ev(
                "response.function_call_arguments.done",
                item_id=f"fc_{i}",
                output_index=i,
                arguments=args,
            )
        )
        done = {**item, "status": "completed", "arguments": args}
        items.append(done)
        out.append(ev("response.output_item.done", output_index=i, item=done))
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5 * n,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 10 + 5 * n,
    }
    final = {**resp, "status": "completed", "output": items, "usage": usage}
    out.append(ev("response.completed", response=final))
    return b"".join(out)


BUILDERS: dict[str, Callable[[int], bytes]] = {
    "chat": chat_calls,
    "anthropic": anthropic_calls,
    "gemini": gemini_calls,
    "responses": responses_calls,
}

"""Synthetic but wire-exact long streams per provider format, for the benchmarks.

Each body: ``TEXT_DELTAS`` text deltas, then one tool call streamed in ``ARG_FRAGMENTS``
argument fragments, then the provider's finish and usage events.
"""

from __future__ import annotations

import json
from collections.abc import Callable

TEXT_DELTAS = 2000
ARG_FRAGMENTS = 400


def _fragments() -> list[str]:
    args = json.dumps({"query": "x" * (ARG_FRAGMENTS * 4), "limit": 5})
    size = max(1, len(args) // ARG_FRAGMENTS)
    return [args[i : i + size] for i in range(0, len(args), size)]


def _sse(obj: object, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(obj, separators=(',', ':'))}\n\n"


def _pad(i: int) -> str:
    """OpenAI's ``obfuscation`` field: random padding of varying length on every chunk."""
    return "AbCdEfGhIjKlMnOp"[: 2 + i % 14]


def openai_chat() -> bytes:
    """As api.openai.com sends it with ``include_usage`` (every chunk has ``usage: null``)."""
    base = {
        "id": "chatcmpl-CYLbhBxLUK7M9XZkxGNtvNDMKhBf5",
        "object": "chat.completion.chunk",
        "created": 1762302245,
        "model": "gpt-4.1-mini-2025-04-14",
        "service_tier": "default",
        "system_fingerprint": "fp_65564d8ba5",
    }
    n = iter(range(10**6))

    def chunk(delta: dict[str, object], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _sse({**base, "choices": [choice], "usage": None, "obfuscation": _pad(next(n))})

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [chunk({"content": f"word{i} "}) for i in range(TEXT_DELTAS)]
    first = {
        "index": 0,
        "id": "call_i6vaX3o98OPFobHi4IMkIHT8",
        "type": "function",
        "function": {"name": "search", "arguments": ""},
    }
    out.append(chunk({"tool_calls": [first]}))
    for frag in _fragments():
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": frag}}]}))
    out.append(chunk({}, "tool_calls"))
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 2500,
        "total_tokens": 2510,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    out.append(_sse({**base, "choices": [], "usage": usage, "obfuscation": _pad(next(n))}))
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def anthropic() -> bytes:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}  # fmt: skip
    out = [_sse({"type": "message_start", "message": msg}, "message_start")]
    out.append(
        _sse(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        )
    )
    for i in range(TEXT_DELTAS):
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": f"word{i} "},
        }
        out.append(_sse(delta, "content_block_delta"))
    out.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    block = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}
    out.append(
        _sse(
            {"type": "content_block_start", "index": 1, "content_block": block},
            "content_block_start",
        )
    )
    for frag in _fragments():
        delta = {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": frag},
        }
        out.append(_sse(delta, "content_block_delta"))
    out.append(_sse({"type": "content_block_stop", "index": 1}, "content_block_stop"))
    out.append(_sse({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                     "usage": {"output_tokens": 2500}}, "message_delta"))  # fmt: skip
    out.append(_sse({"type": "message_stop"}, "message_stop"))
    return "".join(out).encode()


def gemini() -> bytes:
    def chunk(parts: list[dict[str, object]], finish: str | None = None) -> str:
        cand: dict[str, object] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        usage = {"promptTokenCount": 10, "candidatesTokenCount": 2500, "totalTokenCount": 2510}
        return f"data: {json.dumps({'candidates': [cand], 'usageMetadata': usage, 'modelVersion': 'gemini-2.5-flash'}, separators=(',', ':'))}\r\n\r\n"

    out = [chunk([{"text": f"word{i} "}]) for i in range(TEXT_DELTAS)]
    args = json.loads("".join(_fragments()))
    out.append(chunk([{"functionCall": {"name": "search", "args": args}}], "STOP"))
    return "".join(out).encode()


def openai_responses() -> bytes:
    seq = iter(range(10**6))
    resp = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "gpt-5-mini",
        "output": [],
    }
    out = [
        _sse(
            {"type": "response.created", "sequence_number": next(seq), "response": resp},
            "response.created",
        )
    ]
    msg = {
        "id": "msg_1",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    out.append(
        _sse(
            {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": msg,
            },
            "response.output_item.added",
        )
    )
    for i in range(TEXT_DELTAS):
        ev = {"type": "response.output_text.delta", "sequence_number": next(seq), "item_id": "msg_1",
              "output_index": 0, "content_index": 0, "delta": f"word{i} ", "logprobs": []}  # fmt: skip
        out.append(_sse(ev, ev["type"]))  # type: ignore[arg-type]
    text = "".join(f"word{i} " for i in range(TEXT_DELTAS))
    done_msg = {
        **msg,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    out.append(
        _sse(
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": done_msg,
            },
            "response.output_item.done",
        )
    )
    call = {
        "id": "fc_1",
        "type": "function_call",
        "status": "in_progress",
        "call_id": "call_1",
        "name": "search",
        "arguments": "",
    }
    out.append(
        _sse(
            {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": 1,
                "item": call,
            },
            "response.output_item.added",
        )
    )
    frags = _fragments()
    for frag in frags:
        ev = {
            "type": "response.function_call_arguments.delta",
            "sequence_number": next(seq),
            "item_id": "fc_1",
            "output_index": 1,
            "delta": frag,
        }
        out.append(_sse(ev, ev["type"]))  # type: ignore[arg-type]
    args = "".join(frags)
    out.append(
        _sse(
            {
                "type": "response.function_call_arguments.done",
                "sequence_number": next(seq),
                "item_id": "fc_1",
                "output_index": 1,
                "arguments": args,
            },
            "response.function_call_arguments.done",
        )
    )
    out.append(
        _sse(
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": 1,
                "item": {**call, "status": "completed", "arguments": args},
            },
            "response.output_item.done",
        )
    )
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2500,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2510}  # fmt: skip
    out.append(
        _sse(
            {
                "type": "response.completed",
                "sequence_number": next(seq),
                "response": {**resp, "status": "completed", "usage": usage},
            },
            "response.completed",
        )
    )
    return "".join(out).encode()


FORMATS: dict[str, tuple[str, Callable[[], bytes]]] = {
    "openai": ("openai:gpt-4.1-mini", openai_chat),
    "anthropic": ("anthropic:claude-sonnet-4-5", anthropic),
    "gemini": ("gemini:gemini-2.5-flash", gemini),
    "openai-responses": ("openai-responses:gpt-5-mini", openai_responses),
}


def paced_text(i: int, n: int) -> str:
    """The text of paced stream ``i`` (unique per stream, so cross-talk would show)."""
    return "".join(f"s{i}w{k} " for k in range(n))


def paced_chunks(i: int, n: int) -> list[bytes]:
    """Stream ``i`` in the Chat Completions format: one SSE event per element, then the end."""
    base = {"id": f"chatcmpl-{i}", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4.1-mini", "usage": None}  # fmt: skip

    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _sse({**base, "choices": [choice]}).encode()

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": f"s{i}w{k} "}) for k in range(n)]
    out.append(chunk({}, "stop") + b"data: [DONE]\n\n")
    return out

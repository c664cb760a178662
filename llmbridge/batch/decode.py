"""A batch result's body → the ``ChatResponse`` ``complete()`` gives for the same content.

Rules: the body is the provider's whole (non-streamed) answer. A provider with a whole mode
(its ``stream=False`` call is framed ``whole``) reads it with ``providers.whole.whole_response``,
exactly as ``complete(stream=False)`` does (``whole=True``). For the others (until their whole
decoders land, issue 48.1) the body is replayed as the stream events the provider would have
sent for it, fed to the provider's own stream decoder and folded once (``Accumulator``): one
decoder, so the response is the stream fold's. Each wire format names its replay in
``REPLAYS``; a body that cannot be read is a ``MalformedStreamError`` for that item alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ..errors import LLMBridgeError, MalformedStreamError
from ..messages import ChatResponse
from ..providers.adapter import prepared_of
from ..providers.base import Provider
from ..providers.whole import whole_response
from ..request import ChatRequest
from ..response import Accumulator

__all__ = ["REPLAYS", "decode_body", "has_whole"]

Replay = Callable[[dict[str, Any]], Iterator[tuple[str, Any]]]


def _openai_chat(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    choices = []
    for choice in body.get("choices") or ():
        delta = dict(choice.get("message") or {})
        calls = delta.get("tool_calls")
        if calls:
            delta["tool_calls"] = [{**call, "index": i} for i, call in enumerate(calls)]
        choices.append(
            {
                "index": choice.get("index", 0),
                "delta": delta,
                "finish_reason": choice.get("finish_reason"),
            }
        )
    chunk = {k: v for k, v in body.items() if k != "choices"}
    yield "", {**chunk, "object": "chat.completion.chunk", "choices": choices}
    yield "", "[DONE]"


def _openai_responses(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield "response.created", {"type": "response.created", "response": {**body, "output": []}}
    for index, item in enumerate(body.get("output") or ()):
        base = {"output_index": index, "item_id": item.get("id")}
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", **base, "item": item},
        )
        kind = item.get("type")
        if kind == "message":
            for part_index, part in enumerate(item.get("content") or ()):
                if part.get("type") == "output_text":
                    delta = {**base, "content_index": part_index, "delta": part.get("text", "")}
                    yield (
                        "response.output_text.delta",
                        {"type": "response.output_text.delta", **delta},
                    )
        elif kind == "function_call":
            delta = {**base, "delta": item.get("arguments", "")}
            yield (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    **delta,
                },
            )
        elif kind == "reasoning":
            for part_index, part in enumerate(item.get("summary") or ()):
                delta = {**base, "summary_index": part_index, "delta": part.get("text", "")}
                yield (
                    "response.reasoning_summary_text.delta",
                    {
                        "type": "response.reasoning_summary_text.delta",
                        **delta,
                    },
                )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", **base, "item": item},
        )
    status = body.get("status")
    kind = "response.incomplete" if status == "incomplete" else "response.completed"
    yield kind, {"type": kind, "response": body}


_ANTHROPIC_DELTAS: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {
    "text": lambda b: [{"type": "text_delta", "text": b.get("text", "")}],
    "thinking": lambda b: [
        {"type": "thinking_delta", "thinking": b.get("thinking", "")},
        *([{"type": "signature_delta", "signature": b["signature"]}] if b.get("signature") else []),
    ],
    "tool_use": lambda b: [
        {"type": "input_json_delta", "partial_json": orjson.dumps(b.get("input") or {}).decode()}
    ],
}
_ANTHROPIC_EMPTY: dict[str, dict[str, Any]] = {
    "text": {"text": ""},
    "thinking": {"thinking": "", "signature": ""},
    "tool_use": {"input": {}},
}


def _anthropic(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    usage = dict(body.get("usage") or {})
    start = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 0}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(body.get("content") or ()):
        kind = block.get("type")
        deltas = _ANTHROPIC_DELTAS.get(kind)
        opened = {**block, **_ANTHROPIC_EMPTY[kind]} if deltas is not None else block
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opened},
        )
        for delta in deltas(block) if deltas is not None else ():
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    stop = {"stop_reason": body.get("stop_reason"), "stop_sequence": body.get("stop_sequence")}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def _gemini(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield "", body


REPLAYS: dict[str, Replay] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def has_whole(provider: Provider, request: ChatRequest) -> bool:
    """Whether ``provider`` reads whole answers itself (module rules)."""
    whole = request.model_copy(update={"stream": False})
    return prepared_of(provider, whole).framing == "whole"


def decode_body(
    provider: Provider, request: ChatRequest, wire: str, body: Any, *, whole: bool = False
) -> ChatResponse:
    """The ``ChatResponse`` of one whole ``body`` of format ``wire`` (module rules)."""
    if whole and isinstance(body, dict):
        return whole_response(provider, request, body)
    if not isinstance(body, dict):
        raise MalformedStreamError(
            f"a batch result body is not an object: {body!r:.200}", provider=provider.name
        )
    decoder = prepared_of(provider, request).new_decoder()
    feed = getattr(decoder, "feed", None)
    if feed is None:  # pragma: no cover - every batch wire format is SSE when streamed
        raise MalformedStreamError(
            "no stream decoder for this batch format", provider=provider.name
        )
    acc = Accumulator(provider=provider.name)
    try:
        for event, data in REPLAYS[wire](body):
            for item in feed(event, data if isinstance(data, str) else orjson.dumps(data).decode()):
                acc.add(item)
        for item in decoder.close():
            acc.add(item)
    except LLMBridgeError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MalformedStreamError(
            f"a batch result body could not be read ({exc!r})", provider=provider.name
        ) from None
    return acc.response()

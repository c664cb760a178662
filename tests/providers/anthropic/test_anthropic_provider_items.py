"""Blocks Anthropic runs itself come back in ``resp.message`` and go out again unchanged.

DESIGN.md invariant 7: server tool use, its results and unknown block types are not tool calls
for the app, but ``messages.append(resp.message)`` must carry them to the next request, in the
place they streamed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from llmbridge.events import Finish, ProviderItem
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect, iter_sse
from llmbridge.types import ChatMessage, ChatRequest, RawPart, TextPart

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "anthropic"


def _fixture(name: str) -> tuple[ChatRequest, bytes]:
    inp = orjson.loads((FIXTURES / name / "input.json").read_bytes())
    model = inp.pop("model").partition(":")[2]
    inp.pop("provider_config", None)
    return ChatRequest.model_validate({**inp, "model": model}), (
        FIXTURES / name / "response.sse"
    ).read_bytes()


def _streamed_blocks(body: bytes) -> list[dict[str, Any]]:
    """Each non-app block as the wire built it: start block + input deltas + string deltas."""
    payloads = [orjson.loads(data) for _, data in iter_sse(body)]
    blocks: dict[int, dict[str, Any]] = {}
    json_parts: dict[int, list[str]] = {}
    done: list[dict[str, Any]] = []
    for p in payloads:
        if p["type"] == "content_block_start":
            blocks[p["index"]] = dict(p["content_block"])
            json_parts[p["index"]] = []
        elif p["type"] == "content_block_delta":
            delta, block = p["delta"], blocks[p["index"]]
            if delta["type"] == "input_json_delta":
                json_parts[p["index"]].append(delta["partial_json"])
            elif delta["type"] == "label_delta":
                block["label"] += delta["label"]
        elif p["type"] == "content_block_stop":
            block = blocks.pop(p["index"])
            if json_parts[p["index"]]:
                block["input"] = orjson.loads("".join(json_parts[p["index"]]))
            if block["type"] not in ("text", "tool_use", "thinking", "redacted_thinking"):
                done.append(block)
    return done


def test_server_blocks_round_trip_in_stream_order() -> None:
    provider = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    request, body = _fixture("unknown_block_type")
    events, error = decode_collect(provider.new_decoder(request), [body])
    assert error is None
    check_invariants(events)
    resp = accumulate(events, provider=provider.name)
    streamed = _streamed_blocks(body)
    assert [type(p) for p in resp.message.content] == [RawPart, RawPart, RawPart, TextPart]
    assert [p.data for p in resp.message.content if isinstance(p, RawPart)] == streamed
    assert all(p.provider == "anthropic" for p in resp.message.content if isinstance(p, RawPart))
    finish = events[-1]
    assert isinstance(finish, Finish) and "content_blocks" not in (
        (finish.provider_data or {}).get("anthropic", {})
    )

    follow_up = [*request.messages, resp.message, ChatMessage.user("Who came second?")]
    sent = provider.build_request(request.model_copy(update={"messages": follow_up})).json
    assert sent is not None
    assistant = sent["messages"][-2]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [
        *streamed,
        {"type": "text", "text": resp.text},
    ]
    assert sent["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "Who came second?"}],
    }


def test_pause_turn_continues_with_the_server_block_sent_back() -> None:
    provider = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    request, body = _fixture("pause_turn_raw_history")
    events, error = decode_collect(provider.new_decoder(request), [body])
    assert error is None
    resp = accumulate(events, provider=provider.name)
    assert resp.raw_finish_reason == "pause_turn"
    # pause_turn: the app sends the turn back as is so the server can go on
    sent = provider.build_request(
        request.model_copy(update={"messages": [*request.messages, resp.message]})
    ).json
    assert sent is not None
    assert sent["messages"][-1]["content"][-1] == _streamed_blocks(body)[0]


def test_unparsable_server_input_is_noted_not_raised() -> None:
    provider = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    decoder = provider.new_decoder(ChatRequest(model="claude-sonnet-4-5", messages=[]))
    start = {"type": "message_start", "message": {"id": "m", "model": "x", "content": []}}
    block = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
    payloads: list[dict[str, Any]] = [
        start,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"q": '},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]
    events = [e for p in payloads for e in decoder.feed(p["type"], orjson.dumps(p).decode())]
    events += decoder.close()
    items = [e for e in events if isinstance(e, ProviderItem)]
    assert [i.data for i in items] == [block]  # input as it was at block start
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.provider_data is not None
    (note,) = finish.provider_data["anthropic"]["input_errors"]
    assert (
        note["index"] == 0 and note["raw_input"] == '{"q": ' and "not valid JSON" in note["error"]
    )

"""Items the Responses API runs itself come back in ``resp.message`` and go out unchanged.

DESIGN.md invariant 7: built-in tool items (web search, MCP, code interpreter, ...) are not tool
calls for the app, but ``messages.append(resp.message)`` must send them back in the next
request's ``input``, verbatim and where they were in the output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from llmbridge.events import Finish, ProviderItem
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.openai_responses import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect, iter_sse
from llmbridge.types import ChatMessage, ChatRequest, RawPart, TextPart, ToolCallPart

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "openai-responses"
NAME = "openai-responses"


def _fixture(name: str) -> tuple[ChatRequest, bytes]:
    inp = orjson.loads((FIXTURES / name / "input.json").read_bytes())
    model = inp.pop("model").partition(":")[2]
    inp.pop("provider_config", None)
    body = (FIXTURES / name / "response.sse").read_bytes()
    return ChatRequest.model_validate({**inp, "model": model}), body


def _done_items(body: bytes) -> list[dict[str, Any]]:
    payloads = [orjson.loads(data) for _, data in iter_sse(body)]
    return [p["item"] for p in payloads if p["type"] == "response.output_item.done"]


def test_web_search_item_round_trips_in_output_order() -> None:
    provider = create_provider(NAME, ProviderConfig.from_mapping({"api_key": "k"}))
    request, body = _fixture("builtin_web_search_json_schema")
    events, error = decode_collect(provider.new_decoder(request), [body])
    assert error is None
    check_invariants(events)
    resp = accumulate(events, provider=NAME)
    done = _done_items(body)
    searches = [i for i in done if i["type"] == "web_search_call"]
    assert searches and [type(p) for p in resp.message.content] == [RawPart, TextPart]
    assert [p.data for p in resp.message.content if isinstance(p, RawPart)] == searches
    finish = events[-1]
    assert isinstance(finish, Finish) and "items" not in (finish.provider_data or {})

    follow_up = [*request.messages, resp.message, ChatMessage.user("And Porto?")]
    sent = provider.build_request(request.model_copy(update={"messages": follow_up})).json
    assert sent is not None
    items = sent["input"]
    assert items[1:] == [
        *searches,
        {"type": "message", "role": "assistant", "content": resp.text},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "And Porto?"}],
        },
    ]


def test_builtin_items_keep_their_place_between_calls_and_text() -> None:
    mcp = {"type": "mcp_call", "id": "mcp_1", "name": "roll", "arguments": "{}", "output": "4"}
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "{}",
    }
    msg = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}],
    }
    payloads: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "model": "m"}},
        {"type": "response.output_item.done", "output_index": 0, "item": mcp},
        {"type": "response.output_item.added", "output_index": 1, "item": call},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {"type": "response.output_item.done", "output_index": 2, "item": msg},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    decoder = ResponsesDecoder()
    events = [e for p in payloads for e in decoder.feed("", orjson.dumps(p).decode())]
    events += decoder.close()
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [mcp]
    resp = accumulate(events, provider=NAME)
    assert [type(p) for p in resp.message.content] == [RawPart, ToolCallPart, TextPart]
    provider = create_provider(NAME, ProviderConfig.from_mapping({"api_key": "k"}))
    history = [ChatMessage.user("go"), resp.message]
    sent = provider.build_request(ChatRequest(model="gpt-5-mini", messages=history)).json
    assert sent is not None
    assert [i["type"] for i in sent["input"]] == ["message", "mcp_call", "function_call", "message"]
    assert sent["input"][1] == mcp


def test_raw_parts_of_other_providers_are_not_sent() -> None:
    provider = create_provider(NAME, ProviderConfig.from_mapping({"api_key": "k"}))
    foreign = ChatMessage(
        role="assistant",
        content=[RawPart(provider="anthropic", data={"type": "server_tool_use", "id": "s"})],
    )
    request = ChatRequest(model="gpt-5-mini", messages=[ChatMessage.user("hi"), foreign])
    sent = provider.build_request(request).json
    assert sent is not None and [i["type"] for i in sent["input"]] == ["message"]

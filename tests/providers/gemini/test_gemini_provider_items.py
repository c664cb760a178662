"""Parts Gemini runs itself come back in ``resp.message`` and go out unchanged.

DESIGN.md invariant 7: ``executableCode`` / ``codeExecutionResult`` (and other server parts) are
not tool calls for the app, but ``messages.append(resp.message)`` must send them back in the
next request, each part exactly as received (its ``thoughtSignature`` included), in order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from llmbridge.events import Finish, ProviderItem
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect, iter_sse
from llmbridge.types import ChatMessage, ChatRequest, RawPart, ReasoningPart, TextPart

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "gemini" / "code_execution"
CONFIGS = {
    "gemini": {"api_key": "k"},
    "vertex": {"api_key": "k", "project": "demo-project", "location": "global"},
}


def _streamed_parts(body: bytes) -> list[dict[str, Any]]:
    chunks = [orjson.loads(data) for _, data in iter_sse(body)]
    return [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_code_execution_parts_round_trip_in_order(name: str) -> None:
    provider = create_provider(name, ProviderConfig.from_mapping(CONFIGS[name]))
    inp = orjson.loads((FIXTURE / "input.json").read_bytes())
    request = ChatRequest.model_validate({**inp, "model": "gemini-3-flash-preview"})
    body = (FIXTURE / "response.sse").read_bytes()
    events, error = decode_collect(provider.new_decoder(request), [body])
    assert error is None
    check_invariants(events)
    resp = accumulate(events, provider=name)
    parts = _streamed_parts(body)
    server = [p for p in parts if "text" not in p]
    assert [type(p) for p in resp.message.content] == [RawPart, RawPart, TextPart, ReasoningPart]
    raw = [p for p in resp.message.content if isinstance(p, RawPart)]
    assert [p.data for p in raw] == server and all(p.provider == name for p in raw)
    finish = events[-1]
    assert isinstance(finish, Finish) and "server_parts" not in (finish.provider_data or {})

    follow_up = [*request.messages, resp.message, ChatMessage.user("Now the first 50?")]
    sent = provider.build_request(request.model_copy(update={"messages": follow_up})).json
    assert sent is not None
    model_turn = sent["contents"][1]
    # the wire parts minus the empty text part that carried nothing
    assert model_turn == {
        "role": "model",
        "parts": [
            *server,
            {"text": resp.text},
            next(p for p in parts if p.get("text") == "" and "thoughtSignature" in p),
        ],
    }
    assert sent["contents"][2] == {"role": "user", "parts": [{"text": "Now the first 50?"}]}


def test_server_parts_of_another_format_are_not_sent() -> None:
    provider = create_provider("gemini", ProviderConfig.from_mapping(CONFIGS["gemini"]))
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    turn = ChatMessage(
        role="assistant",
        content=[RawPart(provider="openai-responses", data=code), TextPart(text="1")],
    )
    request = ChatRequest(model="gemini-2.5-flash", messages=[ChatMessage.user("go"), turn])
    sent = provider.build_request(request).json
    assert sent is not None and sent["contents"][1]["parts"] == [{"text": "1"}]


def test_signature_waiting_before_a_server_part_goes_back_before_it() -> None:
    """An empty signed text part, then a code part with its own signature: both kept apart."""
    provider = create_provider("gemini", ProviderConfig.from_mapping(CONFIGS["gemini"]))
    code = {"executableCode": {"language": "PYTHON", "code": "1"}, "thoughtSignature": "B"}
    chunk = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "", "thoughtSignature": "A"}, code],
                },
                "finishReason": "STOP",
            }
        ]
    }
    decoder = provider.new_decoder(ChatRequest(model="gemini-2.5-flash", messages=[]))
    events = decoder.feed("", orjson.dumps(chunk).decode()) + decoder.close()
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [code]
    resp = accumulate(events, provider="gemini")
    request = ChatRequest(model="gemini-2.5-flash", messages=[ChatMessage.user("go"), resp.message])
    sent = provider.build_request(request).json
    assert sent is not None
    assert sent["contents"][1]["parts"] == [{"text": "", "thoughtSignature": "A"}, code]

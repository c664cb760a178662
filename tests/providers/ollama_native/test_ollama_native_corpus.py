"""``ollama-native`` against every real Ollama recording in ``../shared/corpus`` (category H).

Each NDJSON body is decoded whole and at random splits (seeded by its name) and must agree with
what the ``ollama`` client accumulated (``expected_file``): text, thinking, tool calls (name and
arguments), the raw finish reason, the counts and the durations. Where we knowingly differ from
that reference, on purpose:

* Ollama says ``done_reason: "stop"`` after tool calls; the client reports ``stop``. We finish
  ``tool_calls`` (``raw_reason`` stays ``stop``): a tool loop must see that the model asked for
  tools, and every other provider reports it so.
* Ollama sends tool calls without ids (the reference's ``id`` is ``None``); ours are generated,
  unique in the response and flagged ``generated_id``, because a tool result must name its call.

``/api/generate`` recordings (``response`` instead of ``message``) are read by the same decoder.
The recorded ``/api/chat`` requests are rebuilt from their meaning (``ChatRequest``) by our
encoder and compared field by field (``test_our_request_matches_the_recorded_one``).
"""

from __future__ import annotations

import base64
import random
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect, merge_deltas
from tests import corpus
from tests.sdk_requests import check_ollama_body

ENTRIES = corpus.entries("H")
REQUEST = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])


def _provider(**options: Any) -> Any:
    config = {"base_url": "http://localhost:11434", **options}
    return create_provider("ollama-native", ProviderConfig.from_mapping(config))


def _splits(body: bytes, seed: str) -> list[list[bytes]]:
    rng = random.Random(seed)
    out = [[body], [body[i : i + 1] for i in range(min(len(body), 4000))] + [body[4000:]]]
    for _ in range(4):
        cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 12))))
        out.append([body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)])
    return out


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_split_agrees_with_the_ollama_client(entry: dict[str, Any]) -> None:
    body, expected = corpus.body(entry), corpus.expected(entry)
    assert expected is not None and entry["expected_status"] == "ok"
    provider = _provider()
    outcomes = []
    for chunks in _splits(body, entry["file"]):
        events, error = decode_collect(provider.new_decoder(REQUEST), chunks, framing="ndjson")
        assert error is None, f"{entry['file']}: {error!r}"
        check_invariants(events)
        outcomes.append(merge_deltas(events))
    assert all(o == outcomes[0] for o in outcomes), "the split changed the events"
    events = outcomes[0]
    response = accumulate(events, provider="ollama-native")
    assert response.text == (expected["text"] or "")
    assert response.reasoning == (expected["reasoning"] or "")
    want_calls = [(c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert [(c.name, c.arguments) for c in response.tool_calls] == want_calls
    ids = [c.id for c in response.tool_calls]
    assert len(set(ids)) == len(ids) and all(ids)
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    assert finish.raw_reason == expected["finish_reason"]
    want_reason = {"stop": "stop", "length": "length"}.get(expected["finish_reason"], "other")
    assert finish.reason == ("tool_calls" if want_calls else want_reason)
    usage = expected["usage"]
    assert finish.usage == lb.Usage(
        input_tokens=usage.get("prompt_eval_count", 0), output_tokens=usage.get("eval_count", 0)
    )
    data = (finish.provider_data or {})["ollama-native"]
    for name in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration"):
        assert data.get(name) == usage.get(name)
    start = events[0]
    assert isinstance(start, lb.StreamStart) and start.model == expected["model"]


# -- requests -------------------------------------------------------------------------------
def _chat_request(recorded: dict[str, Any]) -> tuple[lb.ChatRequest, dict[str, Any]]:
    """The recorded request's meaning as a ``ChatRequest`` (and provider options)."""
    messages: list[lb.ChatMessage] = []
    calls: list[tuple[str, str]] = []  # (id, name) of calls not yet answered
    for n, message in enumerate(recorded["messages"]):
        role, text = message["role"], message.get("content") or ""
        if role == "assistant":
            parts = [
                lb.ToolCallPart(
                    id=f"c{n}_{i}", name=c["function"]["name"], arguments=c["function"]["arguments"]
                )
                for i, c in enumerate(message.get("tool_calls", []))
            ]
            calls.extend((p.id, p.name) for p in parts)
            messages.append(lb.ChatMessage.assistant(text, tool_calls=parts))
        elif role == "tool":
            name = message.get("tool_name")
            match = next((c for c in calls if name in (None, c[1])), ("unanswered", None))
            if match in calls:
                calls.remove(match)
            messages.append(lb.ChatMessage.tool_result(match[0], text, name=name))
        else:
            parts: list[Any] = [lb.TextPart(text=text)]
            for image in message.get("images", []):
                data = base64.b64decode(image)
                parts.append(lb.ImagePart(data=data, media_type="image/png"))
            messages.append(lb.ChatMessage(role=role, content=parts))
    options = dict(recorded.get("options") or {})
    settings: dict[str, Any] = {
        "temperature": options.pop("temperature", None),
        "max_tokens": options.pop("num_predict", None),
        "seed": options.pop("seed", None),
    }
    fmt = recorded.get("format")
    if fmt:
        settings["response_format"] = lb.ResponseFormat(schema={} if fmt == "json" else fmt)
    tools = [
        lb.ToolSpec.from_json_schema(
            t["function"]["name"], t["function"].get("description", ""), t["function"]["parameters"]
        )
        for t in recorded.get("tools") or []
    ]
    request = lb.ChatRequest(model=recorded["model"], messages=messages, tools=tools, **settings)
    provider_options: dict[str, Any] = {}
    if options:  # other runner options (``think`` put there by one client) pass through
        provider_options["options"] = options
    if "keep_alive" in recorded:
        provider_options["keep_alive"] = recorded["keep_alive"]
    return request, provider_options


def _normal(recorded: dict[str, Any]) -> dict[str, Any]:
    """The recorded body as we send the same meaning: ``content: null`` is ``""``, empty
    ``tools`` / ``images`` / ``format: ""`` (the client's "none") are left out, ``stream`` is
    always true, and a top-level ``temperature`` (a client's mistake: Ollama reads it only in
    ``options``) is dropped."""
    out = {k: v for k, v in recorded.items() if k not in ("temperature",)}
    out["stream"] = True
    out["messages"] = [
        {**{k: v for k, v in m.items() if v != []}, "content": m.get("content") or ""}
        for m in recorded["messages"]
    ]
    for key in ("tools", "format"):
        if not out.get(key):
            out.pop(key, None)
    if out.get("format") not in (None, "json"):
        out["format"] = {k: v for k, v in out["format"].items() if k != "$schema"}
    return out


CHAT_REQUESTS = [
    p
    for p in ENTRIES
    if not p.values
    or p.values[0] is None
    or (p.values[0]["api"] == "ollama.chat" and p.values[0].get("request_file"))
]


@pytest.mark.parametrize("entry", CHAT_REQUESTS)
def test_our_request_matches_the_recorded_one(entry: dict[str, Any]) -> None:
    recorded = corpus.request_body(entry)
    assert recorded is not None
    request, options = _chat_request(recorded)
    body = _provider(**options).build_request(request).json
    assert body is not None
    check_ollama_body(body)
    want = _normal(recorded)
    for message, sent in zip(want["messages"], body["messages"], strict=True):
        if message["role"] == "tool" and "tool_name" not in message:
            # ruby_llm sends results without the tool's name: ours names it when it is known
            sent = {k: v for k, v in sent.items() if k != "tool_name"}
        assert sent == message
    assert {k: v for k, v in body.items() if k != "messages"} == {
        k: v for k, v in want.items() if k != "messages"
    }

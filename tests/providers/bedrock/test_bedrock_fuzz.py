"""The Converse decoder fed odd shapes: only llmbridge errors ever leave it, and whatever it
returns keeps the event invariants (the accumulator takes it)."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.errors import LLMBridgeError
from llmbridge.providers.bedrock import BedrockDecoder
from llmbridge.response import Accumulator
from llmbridge.testing import check_invariants
from tests.providers.bedrock.frames import message

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.text(max_size=4))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = ["text", "toolUse", "reasoningContent", "citation", "toolResult", "image", "input",
        "signature", "redactedContent", "toolUseId", "name", "type", "location", "web", "url"]  # fmt: skip
shaped = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=10,
)
EVENTS = ["messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
          "messageStop", "metadata", "exception:throttlingException", "somethingNew"]  # fmt: skip


def frame(kind: str, index: Any, body: Any) -> tuple[str, str]:
    payload: dict[str, Any] = {"contentBlockIndex": index}
    if kind == "contentBlockStart":
        payload["start"] = body
    elif kind == "contentBlockDelta":
        payload["delta"] = body
    elif kind == "messageStop":
        payload["stopReason"] = body
    elif kind == "metadata":
        payload["usage"] = body
    return kind, orjson.dumps(payload).decode()


frames = st.lists(
    st.tuples(st.sampled_from(EVENTS), st.one_of(st.integers(0, 2), json_values), shaped),
    max_size=12,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames=frames, stop=st.booleans())
def test_only_llmbridge_errors_and_valid_events_come_out(frames: list[Any], stop: bool) -> None:
    decoder = BedrockDecoder()
    events: list[Any] = []
    pairs = [frame(*f) for f in frames]
    if stop:
        pairs.append(("messageStop", '{"stopReason":"end_turn"}'))
    try:
        for kind, data in pairs:
            events.extend(decoder.feed_frame(message(kind, data)))
        events.extend(decoder.close())
    except LLMBridgeError:
        check_invariants(events, complete=False)
        return
    check_invariants(events)
    acc = Accumulator(provider="bedrock")
    for event in events:
        acc.add(event)
    acc.response()

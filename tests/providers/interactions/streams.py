"""Random Interactions streams built from the google-genai SDK's own event types (hypothesis).

``sdk_streams()`` draws an interaction (thoughts with summaries and signatures, text with
citations, function calls with streamed arguments, code execution steps, a final status and
usage); each event is an SDK model (``StepStart``, ``StepDelta``, ``StepStop``, ...) serialized
as the SDK would, numbered ``evt_0``, ``evt_1``, ... in ``event_id``. ``sse(events)`` frames
them; ``fold(events)`` is what a reader must get from them (text, reasoning, calls, status).
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import strategies as st

from tests.providers.interactions.sdk import interactions as it

INTERACTION_ID = "v1_ChdTZXN0SW50ZXJhY3Rpb24"

_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)


def _dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


@st.composite
def _step(draw: st.DrawFn, index: int, calls: list[str]) -> list[Any]:
    kind = draw(st.sampled_from(["thought", "text", "call", "code", "result"]))
    if kind == "thought":
        deltas = [
            it.ThoughtSummaryDelta(content=it.TextContent(text=t))
            for t in draw(st.lists(_text, max_size=3))
        ]
        deltas.append(it.ThoughtSignatureDelta(signature=f"sig{index}"))
        return [it.StepStart(index=index, step=it.ThoughtStep()), *_deltas(index, deltas)]
    if kind == "text":
        deltas = [it.TextDelta(text=t) for t in draw(st.lists(_text, min_size=1, max_size=4))]
        if draw(st.booleans()):
            note = it.URLCitation(url=f"https://example.com/{index}", title="Example")
            deltas.append(it.TextAnnotationDelta(annotations=[note]))
        return [it.StepStart(index=index, step=it.ModelOutputStep()), *_deltas(index, deltas)]
    if kind == "call":
        call_id = f"fc_{index}"
        calls.append(call_id)
        value = draw(st.dictionaries(st.sampled_from("abc"), st.integers(0, 9), max_size=3))
        text = orjson.dumps(value).decode()
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=3)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        step = it.FunctionCallStep(id=call_id, name="tool", arguments={})
        start = it.StepStart(index=index, step=step)
        deltas = [it.ArgumentsDelta(arguments=p) for p in pieces if p]
        return [start, *_deltas(index, deltas)]
    if kind == "result":
        result = it.CodeExecutionResultStep(call_id=f"ce_{index - 1}", result=draw(_text))
        return [it.StepStart(index=index, step=result)]
    code = draw(_text)
    call = it.CodeExecutionCallStep(
        id=f"ce_{index}", arguments={"code": code, "language": "python"}
    )
    return [it.StepStart(index=index, step=call)]


def _deltas(index: int, deltas: list[Any]) -> list[Any]:
    return [it.StepDelta(index=index, delta=d) for d in deltas]


@st.composite
def sdk_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One whole stream: a list of event objects (with ``event_id``), terminal event last."""
    head = it.InteractionSseEventInteraction(
        id=INTERACTION_ID, status="in_progress", model="gemini-3-flash-preview"
    )
    events: list[Any] = [
        it.InteractionCreatedEvent(interaction=head),
        it.InteractionStatusUpdate(interaction_id=INTERACTION_ID, status="in_progress"),
    ]
    calls: list[str] = []
    for index in range(draw(st.integers(1, 4))):
        events.extend(draw(_step(index, calls)))
        events.append(it.StepStop(index=index))
    status = "requires_action" if calls else draw(st.sampled_from(["completed", "incomplete"]))
    usage = it.Usage(total_input_tokens=12, total_output_tokens=7, total_thought_tokens=5)
    end = it.InteractionSseEventInteraction(id=INTERACTION_ID, status=status, usage=usage)
    events.append(it.InteractionCompletedEvent(interaction=end))
    out = []
    for n, event in enumerate(events):
        data = _dump(event)
        data["event_id"] = f"evt_{n}"
        out.append(data)
    return out


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(
        b"event: " + e["event_type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n"
        for e in events
    )

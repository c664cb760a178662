"""Property tests for rescue: random prose and leaked calls in every dialect, split anywhere.

Each call is written the way its dialect's chat template writes it; the prose is built from
marker fragments, brackets and quotes. Every split (down to one character) must give the same
events once adjacent deltas are merged, the prose must come out byte-exact, and every call must
come back with its name, arguments and exact raw arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from helpers import TOOLS, chars, ends, normalize, run, split, text_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.prompt_tools import KNOWN_DIALECTS

RESCUE: dict[str, Any] = {"dialects": KNOWN_DIALECTS, "rescue": True}
FRAGMENTS = [
    *'<>[]{}|"\\`:,. \n\t',
    "[TOOL_CALLS",
    "[ARGS]",
    "<|python_tag",
    "<|tool_call_begin",
    "<|tool_calls_section_",
    "<|channel|",
    "<|start",
    "<|message|>",
    "to=functions.",
    "functions.get_weather:0",
    "<tool_cal",
    "get_weather",
    "a",
    "é☃𝄞",
]
MARKERS = [m for d in KNOWN_DIALECTS for m in (*d.open_markers, *d.close_markers, *d.trailers)]
prose = st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join)
key = st.text(alphabet=st.sampled_from(list('ab<[{"\\é ')), max_size=5)
value = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | key,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(key, kids, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(key, value, max_size=3)


def wire(form: int, name: str, raw: str) -> str:
    """One call as a server leaks it (``form`` picks the dialect and its variant)."""
    n = json.dumps(name)
    return [
        f'[TOOL_CALLS][{{"name": {n}, "arguments": {raw}}}]',
        f"[TOOL_CALLS]{name}[ARGS]{raw}",
        f"[TOOL_CALLS]{name}[CALL_ID]a1B2c3D4e[ARGS]{raw}",
        f'<|python_tag|>{{"name": {n}, "parameters": {raw}}}<|eom_id|>',
        f'<|python_tag|>{{"name": {n}, "parameters": {raw}}}<|eot_id|>',
        f'<|python_tag|>{{"name": {n}, "parameters": {raw}}}',
        f'<tool_call>\n{{"name": {n}, "arguments": {raw}}}\n</tool_call>',
        f"<|tool_calls_section_begin|>\n<|tool_call_begin|>\nfunctions.{name}:0"
        f"<|tool_call_argument_begin|>\n{raw}\n<|tool_call_end|>\n<|tool_calls_section_end|>",
        f"<|tool_call_begin|>functions.{name}:1<|tool_call_argument_begin|>{raw}<|tool_call_end|>",
        f"<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{raw}<|call|>",
        f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json"
        f"<|message|>{raw}<|call|>",
    ][form]


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    form: int
    indent: bool


segment = st.one_of(
    prose,
    st.builds(Call, st.sampled_from(TOOLS), arguments, st.integers(0, 10), st.booleans()),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segments=st.lists(segment, max_size=5), cuts=st.lists(st.integers(0, 1500), max_size=20))
def test_leaked_calls_round_trip_under_any_split(segments: list[Any], cuts: list[int]) -> None:
    doc, text, calls = [], [], []
    for seg in segments:
        if isinstance(seg, Call):
            raw = json.dumps(seg.arguments, indent=2 if seg.indent else None, ensure_ascii=False)
            doc.append(wire(seg.form, seg.name, raw))
            calls.append((seg.name, seg.arguments, raw))
        else:
            doc.append(seg)
            text.append(seg)
    prose_text = "".join(text)
    if any(m in prose_text for m in MARKERS):  # prose that is itself markup is not prose
        return
    document = "".join(doc)
    whole = normalize(run([document], **RESCUE))
    assert normalize(run(split(document, cuts), **RESCUE)) == whole
    assert normalize(run(chars(document), **RESCUE)) == whole
    assert text_of(whole) == prose_text
    got = ends(whole)
    assert [(e.name, e.arguments, e.raw_arguments) for e in got] == calls
    assert all(e.error is None for e in got)


@settings(max_examples=400, deadline=None)
@given(
    doc=st.lists(
        st.sampled_from([*FRAGMENTS, *MARKERS, '"name"', '"get_weather"', "{}", "rm_rf"]),
        max_size=50,
    ).map("".join),
    cuts=st.lists(st.integers(0, 300), max_size=10),
)
def test_any_markup_soup_is_split_invariant_and_loses_nothing(doc: str, cuts: list[int]) -> None:
    whole = normalize(run([doc], **RESCUE))
    assert normalize(run(split(doc, cuts), **RESCUE)) == whole
    assert normalize(run(chars(doc), **RESCUE)) == whole
    if not ends(whole):
        assert text_of(whole) == doc

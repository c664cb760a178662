"""Property tests: random documents of text and calls, rendered, split anywhere.

Every split (down to one character) must give the same events once adjacent deltas are merged,
the text must come out byte-exact, and every call must come back with its name, arguments and
exact raw arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from helpers import TOOLS, chars, ends, normalize, run, split, text_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.prompt_tools import FUNCTION_CALL, TOOL_CALL, Dialect

TRICKY = '<>{}[]"\\`/:, \n\tfunction_call</function_call>é☃𝄞'
TOKENS = [*TRICKY, "<function_cal", "<tool_cal", "</function_call>", "```", "a", "b"]
text_st = st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)
json_text = st.text(
    alphabet=st.characters(exclude_categories=("Cs",)) | st.sampled_from(list(TRICKY)), max_size=12
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | json_text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(json_text, children, max_size=3)
    ),
    max_leaves=8,
)
args_st = st.dictionaries(json_text, json_value, max_size=4)


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    style: int  # how it is written (see render)

    def render(self, dialect: Dialect) -> tuple[str, str]:
        """The tag text and the raw_arguments the parser must report."""
        style = self.style
        raw = json.dumps(
            self.arguments, ensure_ascii=style % 2 == 0, indent=2 if style % 3 == 0 else None
        )
        value = json.dumps(raw) if style % 5 == 4 else raw  # arguments as a JSON string
        name = json.dumps(self.name)
        body = f'{{"name": {name}, "arguments": {value}}}'
        if style % 4 == 1:
            body = f'{{"arguments": {value},\n "name": {name}}}'
        if style % 7 == 3:
            body = f"\n```json\n{body}\n```\n"
        elif style % 7 == 5:
            body = f"  {body}\n"
        return f"{dialect.open_tag}{body}{dialect.close_tag}", raw


segment = st.one_of(
    text_st,
    st.builds(Call, st.sampled_from(TOOLS), args_st, st.integers(0, 419)),
)


def build(
    segments: list[Any], dialect: Dialect
) -> tuple[str, str, list[tuple[str, dict[str, Any], str]]]:
    doc, text, calls = [], [], []
    for seg in segments:
        if isinstance(seg, Call):
            tag, raw = seg.render(dialect)
            doc.append(tag)
            calls.append((seg.name, seg.arguments, raw))
        else:
            doc.append(seg)
            text.append(seg)
    return "".join(doc), "".join(text), calls


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    segments=st.lists(segment, max_size=6),
    cuts=st.lists(st.integers(0, 2000), max_size=20),
    dialect=st.sampled_from([FUNCTION_CALL, TOOL_CALL]),
)
def test_documents_round_trip_under_any_split(
    segments: list[Any], cuts: list[int], dialect: Dialect
) -> None:
    doc, text, calls = build(segments, dialect)
    if dialect.open_tag in text:  # a text segment that is itself a tag is not plain text
        return
    whole = normalize(run([doc], dialects=(dialect,)))
    assert normalize(run(split(doc, cuts), dialects=(dialect,))) == whole
    assert normalize(run(chars(doc), dialects=(dialect,))) == whole
    assert text_of(whole) == text
    got = ends(whole)
    assert [(e.name, e.arguments, e.raw_arguments) for e in got] == calls
    assert all(e.error is None for e in got)


@settings(max_examples=300, deadline=None)
@given(
    doc=st.lists(
        st.sampled_from([*TOKENS, "<function_call>", '"name"', '"noop"', "}"]), max_size=60
    ).map("".join),
    cuts=st.lists(st.integers(0, 200), max_size=10),
)
def test_arbitrary_text_never_crashes_and_never_loses_anything(doc: str, cuts: list[int]) -> None:
    whole = normalize(run([doc]))
    assert normalize(run(split(doc, cuts))) == whole
    assert normalize(run(chars(doc))) == whole
    got = ends(whole)
    if not got:
        assert text_of(whole) == doc
    for end in got:
        if end.error is not None:
            assert end.provider_data is not None
            assert end.provider_data["raw_text"].startswith("<function_call>")
            assert end.provider_data["raw_text"] in doc

"""Fuzzing every decoder and the fallback parser (hypothesis; an atheris twin is
``fuzz_atheris.py``). Only ``LLMBridgeError`` subclasses may escape — never ``KeyError``,
``IndexError``, ``TypeError``, ``AttributeError`` — nothing may hang, and whatever events come out
keep the contract's invariants (a broken stream may end early, but never emits a chunk for a
call that is not open, a reused id, or events after the finish).

Inputs: real fixture bodies (``fixtures/*/*/response.sse``) mutated (byte flips, truncation,
duplicated / dropped / reordered events, JSON values swapped for another type, junk spliced in);
random SSE events built from each provider's own event names and JSON keys; random text full of
tag fragments for the prompt-tool parser, in normal and rescue mode.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.prompt_tools import FUNCTION_CALL, KNOWN_DIALECTS, ToolCallParser
from llmbridge.testing import check_invariants
from tests.reliability.mutations import (
    OPS,
    apply,
    decode_checked,
    new_decoder,
    streamed_fixtures,
    time_limit,
)
from tests.reliability.reliability_support import PROVIDERS, base_fixture


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


FIXTURES = streamed_fixtures()

# Decoders with a known invariant bug on reordered / duplicated events (reproduce it, xfail, in
# test_faults_decoder_bugs.py): fuzzed for escaping exceptions and hangs only until fixed.
# Empty: every decoder's output is checked against the invariants.
KNOWN_INVARIANT_BUGS: frozenset[str] = frozenset()

mutation = st.tuples(
    st.sampled_from(OPS),
    st.integers(min_value=0, max_value=2**20),
    st.integers(min_value=0, max_value=2**20),
    st.binary(max_size=12) | st.sampled_from([b"\n\n", b"data: {}\n\n", b"\xff\xfe", b"\r"]),
)


@fuzz(800)
@given(
    index=st.integers(min_value=0, max_value=len(FIXTURES) - 1),
    mutations=st.lists(mutation, min_size=1, max_size=3),
    cut=st.integers(min_value=0, max_value=2**16),
)
def test_mutated_fixture_bodies(index: int, mutations: list[Any], cut: int) -> None:
    fx = FIXTURES[index]
    body = fx.body
    for op, a, b, junk in mutations:
        body = apply(body, op, a, b, junk)
    at = cut % (len(body) + 1)
    invariants = fx.provider not in KNOWN_INVARIANT_BUGS
    decode_checked(new_decoder(fx), [body[:at], body[at:]], invariants=invariants)


# -- random events in each provider's vocabulary ---------------------------------------------

_NAME = re.compile(rb"^event: ?(.*?)\r?$", re.M)
_KEY = re.compile(rb'"([A-Za-z_][A-Za-z0-9_.]*)":')


@cache
def vocabulary(provider: str) -> tuple[list[str], list[str]]:
    """(event names, JSON keys) seen in the provider's fixtures."""
    bodies = [fx.body for fx in FIXTURES if fx.provider == provider] or [
        base_fixture(provider).body
    ]
    names = sorted({m.decode() for b in bodies for m in _NAME.findall(b)} | {""})
    keys = sorted({m.decode() for b in bodies for m in _KEY.findall(b)})
    return names, keys


def json_in(keys: list[str]) -> st.SearchStrategy[Any]:
    leaf = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-3, max_value=2**40)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.sampled_from(keys)
        | st.text(max_size=8)
    )
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(keys) | st.text(max_size=4), inner, max_size=5)
        ),
        max_leaves=12,
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_random_events_in_the_provider_vocabulary(provider: str) -> None:
    names, keys = vocabulary(provider)
    fx = base_fixture(provider)
    payload = json_in(keys).map(lambda v: orjson.dumps(v).decode()) | st.sampled_from(
        ["[DONE]", "", "{", "null", "[]", '"x"', "1e999"]
    )

    @fuzz(60)
    @given(st.lists(st.tuples(st.sampled_from(names), payload), max_size=12))
    def run(events: list[tuple[str, str]]) -> None:
        body = b"".join(
            (f"event: {n}\n" if n else "").encode() + b"data: " + d.encode() + b"\n\n"
            for n, d in events
        )
        decode_checked(new_decoder(fx), [body])

    run()


# -- the prompt-tool parser -------------------------------------------------------------------

TOKENS = [
    *'<>{}[]"\\`/:, \n\té𝄞',
    "<function_call>",
    "</function_call>",
    "<tool_call>",
    "</tool_call>",
    "<function_cal",
    "</function_",
    '{"name": "get_weather", "arguments": ',
    '{"name": "unknown", "arguments": {}}',
    '{"city": "Paris"}',
    '"arguments"',
    '"name"',
    "```json\n",
    "```",
    "null",
    "a",
]
pieces = st.lists(st.lists(st.sampled_from(TOKENS), max_size=8).map("".join), max_size=12)


@fuzz(500)
@given(chunks=pieces, rescue=st.booleans(), data=st.data())
def test_prompt_tools_parser_takes_any_text(chunks: list[str], rescue: bool, data: Any) -> None:
    dialects = KNOWN_DIALECTS if rescue else (FUNCTION_CALL,)
    parser = ToolCallParser(dialects=dialects, tool_names=["get_weather"], rescue=rescue)
    events = []
    with time_limit(2.0):
        for chunk in chunks:
            events.extend(parser.feed(chunk))
        events.extend(parser.close())
    check_invariants(events, complete=False)
    text = "".join(getattr(e, "text", "") for e in events if e.type == "text_delta")
    if "<" not in "".join(chunks):
        assert text == "".join(chunks), "plain text passes through unchanged"


@fuzz(300)
@given(text=st.text(max_size=200), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_prompt_tools_parser_takes_arbitrary_unicode(text: str, cuts: list[int]) -> None:
    parser = ToolCallParser(tool_names=["get_weather"])
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    events = []
    with time_limit(2.0):
        for a, b in zip(bounds, bounds[1:], strict=False):
            events.extend(parser.feed(text[a:b]))
        events.extend(parser.close())
    check_invariants(events, complete=False)

"""Decoders around another decoder keep what the inner one holds back and where it stands.

A broken stream's partial response is made of the events decoded so far plus the decoder's
``held()`` ones (``stream.failed_attempt``), and a background stream resumes from its
``resume_point()`` (``stream.resume``). A wrapper that answered "nothing held" or "not
resumable" would lose the held item (an OpenAI Responses compaction item, say) or restart a
resumable stream from the beginning: these tests fail then. The wrappers: ``WrappingDecoder``
(``llmbridge.testing.prepared_decoder``'s stamped decoder is one) and the prompt-tools
decoder (tool calls written as text, on any provider).
"""

from __future__ import annotations

import llmbridge as lb
from llmbridge.prompt_tools.decoder import PromptToolDecoder
from llmbridge.providers import WrappingDecoder
from llmbridge.providers.base import ResumePoint, held_of, resume_point_of

ITEM = lb.ProviderItem({"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"})
POINT = ResumePoint("resp_1", after=7)


class _Holding:
    """An inner decoder that decodes text as it comes and holds an item back."""

    def __init__(self) -> None:
        self.fed: list[str] = []

    def feed(self, event: str, data: str) -> list[lb.StreamEvent]:
        self.fed.append(data)
        return [lb.TextDelta(data)]

    def close(self) -> list[lb.StreamEvent]:
        return []

    def held(self) -> list[lb.StreamEvent]:
        return [ITEM]

    def resume_point(self) -> ResumePoint | None:
        return POINT


def test_a_wrapping_decoder_forwards_what_the_inner_one_holds_and_where_it_stands() -> None:
    inner = _Holding()
    wrapped = WrappingDecoder(inner)
    assert held_of(wrapped) == [ITEM]
    assert resume_point_of(wrapped) == POINT


def test_a_prompt_tools_decoder_releases_the_inner_held_events_then_its_own_text() -> None:
    lookup = lb.ToolSpec.from_json_schema("lookup", "Look a word up.", {"type": "object"})
    decoder = PromptToolDecoder(_Holding(), tools=[lookup])
    out = decoder.feed("", "Let me see <func")  # a marker's start: the parser holds it
    held = held_of(decoder)  # the stream broke here
    text = "".join(e.text for e in [*out, *held] if isinstance(e, lb.TextDelta))
    assert ITEM in held
    assert text == "Let me see <func"  # the held marker start is text after all: not lost
    assert resume_point_of(decoder) == POINT

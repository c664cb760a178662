"""Whole answers of odd shapes: every value of each family's answer (``bodies.CASES``)
replaced in turn by ``None``, a list, a string, a number, an object or ``true``; the decoder
gives a response or a typed ``LLMBridgeError``, never another exception."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.whole import whole_response
from tests.whole.bodies import CASES, Case

ODD: list[Any] = [None, [], "x", 7, {}, True, [{}], {"type": None}]
REQUEST = lb.ChatRequest(model="any-model", messages=[lb.ChatMessage.user("hi")])


def _provider(case: Case) -> Any:
    return create_provider(case.provider, ProviderConfig.from_mapping(case.config))


def _variants(value: Any) -> Iterator[Any]:
    """``value`` with one of its values (at any depth) replaced by each odd one."""
    if isinstance(value, dict):
        for key, item in value.items():
            for odd in ODD:
                yield {**value, key: odd}
            for inner in _variants(item):
                yield {**value, key: inner}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for odd in ODD:
                yield [*value[:i], odd, *value[i + 1 :]]
            for inner in _variants(item):
                yield [*value[:i], inner, *value[i + 1 :]]


@pytest.mark.parametrize("case", CASES, ids=[c.provider for c in CASES])
def test_odd_whole_answers_give_a_response_or_a_typed_error(case: Case) -> None:
    count, provider = 0, _provider(case)
    for body in _variants(case.answer):
        count += 1
        try:
            whole_response(provider, REQUEST, body)
        except lb.LLMBridgeError:
            pass
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{type(exc).__name__}: {exc} for {body!r:.300}")
    assert count > 50

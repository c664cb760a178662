"""Replay matchers (issue 44, item 5): ``match_ignore`` paths leave named request fields out of
the comparison (``*`` one key or index, ``**`` any run), and a mismatch names each field that
differs, tools by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.testing import ReplayMismatch, replay_client
from llmbridge.testing.matching import IGNORED, field_diff, without_ignored

REPO = Path(__file__).resolve().parents[1]
CALL = REPO / "examples/fixtures/openai/weather_call"


@lb.tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return "Sunny, 22 °C"


async def _ask(system: str, **options: Any) -> None:
    http = replay_client(CALL, **options)
    async with lb.Client(http_client=http, providers={"openai": {"api_key": "k"}}) as client:
        messages = [lb.ChatMessage.system(system), lb.ChatMessage.user("What's the weather in Paris?")]  # fmt: skip
        async for _ in client.stream("openai:gpt-4.1-mini", messages, tools=[get_weather]):
            pass


@pytest.mark.anyio
async def test_replay_client_takes_match_ignore_and_names_the_field_without_it() -> None:
    await _ask("Be brief. It is 12:03.", match_ignore=["messages.0.content"])
    with pytest.raises(ReplayMismatch) as info:
        await _ask("Be brief. It is 12:03.")
    assert (
        "messages.0.content: sent 'Be brief. It is 12:03.', recorded 'Be brief.'"
        in str(info.value).splitlines()
    )


BODY = {
    "messages": [{"role": "user", "content": {"time": "1", "text": "hi"}}, {"content": "a"}],
    "metadata": {"id": "r1", "user": "u"},
    "nested": {"deep": {"request_id": "x", "keep": 1}},
}


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (["metadata.id"], {**BODY, "metadata": {"user": "u"}}),
        (
            ["messages.*.content.time"],
            {**BODY, "messages": [{"role": "user", "content": {"text": "hi"}}, {"content": "a"}]},
        ),
        (["**.request_id"], {**BODY, "nested": {"deep": {"keep": 1}}}),
        (["messages.0"], {**BODY, "messages": [IGNORED, {"content": "a"}]}),
        (["no.such.field"], BODY),
    ],
)
def test_paths_leave_out_what_they_name(paths: list[str], expected: Any) -> None:
    assert without_ignored(BODY, paths) == expected


def test_the_diff_names_fields_and_tools() -> None:
    recorded = {"model": "a", "tools": [{"function": {"name": "x"}}, {"function": {"name": "y"}}]}
    sent = {"model": "b", "tools": [{"function": {"name": "x"}}, {"function": {"name": "z"}}]}
    assert field_diff(recorded, sent) == [
        "model: sent 'b', recorded 'a'",
        "tools: tool 'z' sent, not recorded",
        "tools: tool 'y' recorded, not sent",
    ]
    swapped = {**recorded, "tools": recorded["tools"][::-1]}
    assert field_diff(recorded, swapped) == ["tools: the same tools in another order"]
    assert field_diff([1, 2], [1]) == ["1: recorded 2, not sent"]

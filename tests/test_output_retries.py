"""Invalid structured answers asked again (issue 44, item 2): ``output_retries=N`` sends the
model that answered its invalid answer and the validation error, up to N times, before a chain
moves on (``fallback_on``) or the error is raised; ``run()`` does the same for its final
answer, after tool turns."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import llmbridge as lb
from tests.fakes import chat_sse, mock_client

pytestmark = pytest.mark.anyio
USER = [lb.ChatMessage.user("Which city, and how many people live there?")]


class City(BaseModel):
    city: str
    population: int


def _sse(delta: dict[str, Any], finish: str = "stop") -> httpx.Response:
    body = chat_sse(delta, finish=finish)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


class Models:
    """A scripted OpenAI endpoint: each model answers from its own list, in turn; every
    request body is kept."""

    def __init__(self, **answers: list[str]) -> None:
        self.answers = answers
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        text = self.answers[body["model"]].pop(0)
        if text.startswith("CALL "):
            call = {"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "lookup", "arguments": text[5:]}}  # fmt: skip
            return _sse({"tool_calls": [call]}, finish="tool_calls")
        return _sse({"content": text})

    @property
    def asked(self) -> list[str]:
        return [b["model"] for b in self.bodies]

    def client(self) -> lb.Client:
        return lb.Client(http_client=mock_client(self), providers={"openai": {"api_key": "k"}})


GOOD = '{"city": "Paris", "population": 2100000}'
MISSING = '{"city": "Paris"}'


async def test_the_same_model_gets_its_answer_and_the_validation_error() -> None:
    models = Models(small=[MISSING, GOOD])
    response = await models.client().complete(
        "openai:small", USER, response_format=City, output_retries=1
    )
    assert response.parsed == City(city="Paris", population=2100000)
    assert models.asked == ["small", "small"]
    second = models.bodies[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[1]["content"] == MISSING
    assert "population: Field required" in second[2]["content"]
    assert len(models.bodies[0]["messages"]) == 1  # the caller's list is left as it was


async def test_retries_pile_up_then_the_error_says_how_many_there_were() -> None:
    models = Models(small=["Paris!", MISSING, "no idea"])
    with pytest.raises(lb.StructuredOutputError, match=r"after 2 output_retries"):
        await models.client().complete("openai:small", USER, response_format=City, output_retries=2)
    assert models.asked == ["small"] * 3
    last = models.bodies[2]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert "not JSON" in last[2]["content"]


async def test_after_its_retries_the_next_model_starts_afresh() -> None:
    models = Models(small=["Paris!", MISSING], big=[GOOD])
    response = await models.client().complete(
        ["openai:small", "openai:big"], USER, response_format=City,
        output_retries=1, fallback_on=[lb.StructuredOutputError],
    )  # fmt: skip
    assert response.parsed is not None and response.parsed.population == 2100000
    assert models.asked == ["small", "small", "big"]
    assert len(models.bodies[2]["messages"]) == 1  # not the small model's attempts


async def test_no_retries_by_default() -> None:
    models = Models(small=[MISSING, GOOD])
    with pytest.raises(lb.StructuredOutputError):
        await models.client().complete("openai:small", USER, response_format=City)
    assert models.asked == ["small"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"output_retries": 2}, "needs a response_format"),
        ({"output_retries": -1, "response_format": City}, "whole number"),
        ({"output_retries": True, "response_format": City}, "whole number"),
    ],
)
async def test_misuse_is_a_usage_error(options: dict[str, Any], match: str) -> None:
    models = Models(small=[GOOD])
    with pytest.raises(lb.UsageError, match=match):
        await models.client().complete("openai:small", USER, **options)
    assert models.asked == []


@lb.tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: 2100000 people"


async def _run(models: Models, model: Any, **options: Any) -> lb.ToolLoop[Any]:
    loop = models.client().run(model, USER, tools=[lookup], response_format=City, **options)
    async for _ in loop:
        pass
    return loop


async def test_run_retries_its_final_answer_with_the_validation_error() -> None:
    models = Models(small=['CALL {"city": "Paris"}', MISSING, GOOD])
    loop = await _run(models, "openai:small", output_retries=1)
    assert loop.response is not None and loop.response.parsed == City(
        city="Paris", population=2100000
    )
    assert loop.stop_reason == "final"
    roles = [m.role for m in loop.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert "population: Field required" in loop.messages[4].text


async def test_run_falls_back_to_the_next_model_for_its_final_answer() -> None:
    models = Models(small=['CALL {"city": "Paris"}', MISSING], big=[GOOD])
    loop = await _run(
        models, ["openai:small", "openai:big"], fallback_on=[lb.StructuredOutputError]
    )
    assert loop.response is not None and loop.response.parsed is not None
    assert models.asked == ["small", "small", "big"]
    sent = [m["role"] for m in models.bodies[2]["messages"]]
    assert sent == ["user", "assistant", "tool"]  # the tool turn kept, the invalid answer not


async def test_run_without_either_raises_as_before() -> None:
    models = Models(small=['CALL {"city": "Paris"}', MISSING], big=[GOOD])
    with pytest.raises(lb.StructuredOutputError):
        await _run(models, ["openai:small", "openai:big"])
    assert models.asked == ["small", "small"]

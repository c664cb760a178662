# mypy: disallow-any-expr
"""A user's script, written against the public API only: CI checks it with
``mypy --strict --disallow-any-expr`` (``.ci/run``), so an ``Any`` leaking out of llmbridge
into a user's code, or a setting losing its type, fails the build.

``tests/test_typed_api.py`` runs the same check, and runs these functions against a fake
provider, so the script is not only well typed but also runs as written.
"""

from __future__ import annotations

from pydantic import BaseModel
from typing_extensions import assert_type

import llmbridge as lb


class Recipe(BaseModel):
    title: str
    minutes: int


@lb.tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


async def typed_async(client: lb.Client, model: str) -> list[str]:
    seen: list[str] = []

    # A plain string is a user message; OpenAI-shaped dicts are messages too.
    resp = await client.complete(
        model,
        "A quick pasta recipe",
        response_format=Recipe,
        temperature=0.2,
        max_tokens=200,
        stop=["\n\n"],
        headers={"x-request-source": "typed-script"},
        max_attempts=2,
        retry=lb.RetryPolicy(max_attempts=3),
    )
    assert_type(resp, lb.ChatResponse[Recipe])
    assert_type(resp.parsed, Recipe)
    seen.append(resp.parsed.title)
    minutes: int = resp.parsed.minutes
    seen.append(str(minutes))

    plain = await client.complete(
        model,
        [{"role": "system", "content": "Be brief."}, lb.ChatMessage.user("Hi")],
        tool_choice="auto",
        seed=7,
        top_p=0.9,
        reasoning=lb.ReasoningConfig(effort="low"),
    )
    assert_type(plain, lb.ChatResponse[None])
    assert_type(plain.parsed, None)
    text: str = plain.text
    seen.append(text)

    async with client.stream(model, "Tell me a story", max_tokens=50) as events:
        async for ev in events:
            if ev.type == "text_delta":
                assert_type(ev, lb.TextDelta)
                seen.append(ev.text)
            elif ev.type == "finish":
                assert_type(ev, lb.Finish)
                seen.append(ev.reason)

    chain = client.stream(
        [model, lb.ModelOption(model, max_tokens=10)],
        "Hi",
        restart=True,
        fallback_on=[lb.RateLimitError, lb.ContextLengthError],
    )
    async for ev in chain:
        if ev.type == "model_switch":
            seen.append(ev.to_model)

    loop = client.run(model, "Weather in Paris?", tools=[get_weather], response_format=Recipe)
    async for step in loop:
        if step.type == "tool_result":
            seen.append(step.name)
    if loop.response is not None:
        assert_type(loop.response.parsed, Recipe)
        seen.append(loop.response.parsed.title)

    try:
        tokens = await client.count_tokens(model, "How long is this?", tools=[get_weather])
    except lb.ConfigurationError:  # a provider without a token-counting endpoint
        tokens = -1
    assert_type(tokens, int)
    seen.append(str(tokens))
    return seen


def typed_sync(client: lb.SyncClient, model: str) -> list[str]:
    seen: list[str] = []
    resp = client.complete(model, "A recipe", response_format=Recipe, temperature=0.0)
    assert_type(resp.parsed, Recipe)
    seen.append(resp.parsed.title)

    for ev in client.stream(model, "Hi", top_k=5):
        if ev.type == "text_delta":
            seen.append(ev.text)

    loop = client.run(model, "Weather?", tools=[get_weather], response_format=Recipe)
    for step in loop:
        if step.type == "tool_result":
            seen.append(step.name)
    if loop.response is not None:
        seen.append(loop.response.parsed.title)
    assert_type(get_weather("Lyon"), str)
    return seen


def typed_registry(registry: lb.ToolRegistry) -> int:
    @registry.register
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    weather = registry.register(get_weather, max_invocations=3)
    assert_type(weather("Oslo"), str)
    return add(1, 2)


async def typed_batch(client: lb.Client, model: str) -> list[str]:
    seen: list[str] = []
    messages = [lb.ChatMessage.user("Hi")]
    requests = [lb.BatchRequest("q1", messages, max_tokens=10)]
    job = await client.batch_wait(await client.batch(model, requests), poll_interval=1.0)
    async for result in client.batch_results(job):
        if result.response is not None:
            seen.append(result.response.text)
    embeddings = await client.batch_embed("openai:text-embedding-3-small", requests)

    def told(job: lb.BatchJob[lb.EmbeddingResponse]) -> None:
        seen.append(job.status)

    embeddings = await client.batch_wait(embeddings, poll_interval=1.0, on_progress=told)
    async for item in client.batch_results(embeddings):
        assert_type(item.response, lb.EmbeddingResponse | None)
        if item.response is not None:
            seen.append(str(len(item.response)))
    return seen

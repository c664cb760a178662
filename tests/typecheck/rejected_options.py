"""Misuse a type checker must reject (``tests/test_typed_api.py`` asserts each error by its
line's marker comment). Never run, and never in CI's own mypy line: it fails on purpose."""

from __future__ import annotations

from pydantic import BaseModel

import llmbridge as lb


class Recipe(BaseModel):
    title: str


async def misuse(client: lb.Client, sync: lb.SyncClient) -> None:
    await client.complete("openai:gpt-4.1-mini", "Hi", max_token=5)  # E: max_token
    await client.complete("openai:gpt-4.1-mini", "Hi", temperature="hot")  # E: temperature
    client.stream("openai:gpt-4.1-mini", "Hi", retry=3)  # E: retry
    client.stream("openai:gpt-4.1-mini", 42)  # E: messages
    client.run("openai:gpt-4.1-mini", "Hi", tools=[], max_tokens="many")  # E: run max_tokens
    await client.count_tokens("openai:gpt-4.1-mini", "Hi", restart=True)  # E: count restart
    sync.complete("openai:gpt-4.1-mini", "Hi", top_p="high")  # E: sync top_p
    sync.stream("openai:gpt-4.1-mini", "Hi", headers={"x": 1})  # E: sync headers
    resp = await client.complete("openai:gpt-4.1-mini", "Hi", response_format=Recipe)
    print(resp.parsed.titel)  # E: parsed attribute
    plain = await client.complete("openai:gpt-4.1-mini", "Hi")
    print(plain.parsed.title)  # E: parsed without a format is None
    lb.ChatRequest(model="m", messages=[], temperature="hot")  # E: request temperature
    lb.ChatRequest(model="m", messages=[], max_token=5)  # E: request max_token

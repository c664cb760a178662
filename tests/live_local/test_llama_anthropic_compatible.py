"""``anthropic-compatible:`` against llama.cpp's real ``/v1/messages`` (issue 44, item 7): the
base URL works with or without ``/v1``, sampling settings are sent without a warning, the
structured-output schema goes into the prompt, and a wrong address names the URL in its 404."""

from __future__ import annotations

import httpx
import orjson
import pytest

import llmbridge as lb
from tests.live_local.server import Server

# the IO path is anthropic's, run on every loop by the other live tests: asyncio here
pytestmark = [pytest.mark.anyio, pytest.mark.loops("asyncio")]

HI = [lb.ChatMessage.user("Say hello.")]


def _client(base_url: str) -> lb.Client:
    return lb.Client(providers={"anthropic-compatible": {"base_url": base_url}})


@pytest.mark.parametrize("with_v1", [True, False])
async def test_the_base_url_is_taken_with_or_without_v1(llama: Server, with_v1: bool) -> None:
    base = llama.base_url if with_v1 else llama.base_url.removesuffix("/v1")
    async with _client(base) as client:
        response = await client.complete(
            "anthropic-compatible:gemma", HI, max_tokens=8, temperature=0.0, seed=1
        )
    assert response.text and response.finish_reason == "length"
    assert response.usage is not None and response.usage.output_tokens == 8


async def test_sampling_settings_are_sent_without_a_warning(llama: Server) -> None:
    async with _client(llama.base_url) as client:
        stream = client.stream(
            "anthropic-compatible:gemma", HI, max_tokens=4, temperature=0.2, top_p=0.9
        )
        events = [e async for e in stream]
    start = next(e for e in events if isinstance(e, lb.StreamStart))
    assert start.warnings == []  # anthropic: would drop them under API version 2026-10-21


async def test_a_wrong_address_names_the_url_in_its_404(llama: Server) -> None:
    async with _client(llama.base_url + "/api") as client:
        with pytest.raises(lb.NotFoundError) as caught:
            await client.complete("anthropic-compatible:gemma", HI, max_tokens=4)
    assert f"{llama.base_url}/api/v1/messages answered 404" in caught.value.message


async def test_a_response_format_is_asked_in_the_prompt(llama: Server) -> None:
    bodies: list[dict[str, object]] = []

    async def keep(request: httpx.Request) -> None:
        bodies.append(orjson.loads(request.content))

    http = httpx.AsyncClient(event_hooks={"request": [keep]}, timeout=60)
    options = {"base_url": llama.base_url}
    async with (
        http,
        lb.Client(http_client=http, providers={"anthropic-compatible": options}) as client,
    ):
        with pytest.raises(lb.StructuredOutputError):  # a tiny base model writes no JSON
            await client.complete(
                "anthropic-compatible:gemma", HI, max_tokens=4,
                response_format={"type": "object", "properties": {"city": {"type": "string"}}},
            )  # fmt: skip
    (body,) = bodies
    assert "output_config" not in body and '"city"' in str(body["system"])

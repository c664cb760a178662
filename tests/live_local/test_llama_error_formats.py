"""One llama.cpp error, every wire format it serves (issue 34, items 19-20), on every loop.

llama-server answers a prompt over its context window with 400 and ``type:
exceed_context_size_error`` on ``/v1/chat/completions``, ``/v1/responses`` and
``/v1/messages`` alike: a ``ContextLengthError`` through each provider, sent once.
"""

from __future__ import annotations

import pytest

import llmbridge as lb
from tests.live_local.server import Server

pytestmark = pytest.mark.anyio

TOO_LONG = [lb.ChatMessage.user("word " * 6000)]


def _client(llama: Server, name: str) -> lb.Client:
    base = llama.base_url.removesuffix("/v1") if name == "anthropic" else llama.base_url
    return lb.Client(
        providers={name: {"base_url": base, "api_key": "unused"}},
        retry=lb.RetryPolicy(max_attempts=3, initial_delay=5.0, jitter=0.0),
    )


@pytest.mark.parametrize("name", ["llamacpp", "openai-responses", "anthropic"])
async def test_context_overflow_is_a_context_length_error_in_every_format(
    llama: Server, name: str
) -> None:
    async with _client(llama, name) as client:
        with pytest.raises(lb.ContextLengthError) as caught:
            await client.complete(f"{name}:gemma", TOO_LONG, max_tokens=4, timeout=4)
    error = caught.value
    assert error.status == 400 and not error.retryable
    assert error.error_type == "exceed_context_size_error"

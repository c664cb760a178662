"""Recording against slow or failing servers (issue 44, item 1): a recording uses llmbridge's own
timeouts, never httpx's 5 s default, and an attempt that failed is recorded as the failure it
was, so its replay fails the same way (and a fallback chain replays by the route it took)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.stream.clients import DEFAULT_TIMEOUT
from llmbridge.testing import load_fixture, record_fixture
from llmbridge.testing.replay import ReplayTransport

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("Hi")]
OPTIONS = {"providers": {"openai": {"api_key": "sk-recording-secret"}}}
HEAD = {"content-type": "text/event-stream"}


def _chunk(text: str) -> bytes:
    delta = {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4.1-mini",
             "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}  # fmt: skip
    return b"data: " + orjson.dumps(delta) + b"\n\n"


ANSWER = [
    _chunk("Hel"),
    _chunk("lo"),
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini","choices":'
    b'[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
]


class _Cut(httpx.AsyncByteStream):
    """A body that sends ``chunks`` and then stops answering (httpx's read timeout fires)."""

    def __init__(self, chunks: list[bytes], error: type[httpx.TransportError]) -> None:
        self.chunks, self.error = chunks, error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        raise self.error("the network went quiet")


async def test_a_recording_tells_the_network_llmbridges_timeouts_not_httpxs(tmp_path: Path) -> None:
    seen: list[dict[str, float]] = []

    def network(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, headers=HEAD, content=b"".join(ANSWER))

    await record_fixture(
        tmp_path / "f", "openai:gpt-4.1-mini", MESSAGES,
        client_options=OPTIONS, transport=httpx.MockTransport(network),
    )  # fmt: skip
    # a local model whose first byte takes 7 s records: the idle timeout is llmbridge's 120 s
    assert seen[0]["read"] == DEFAULT_TIMEOUT.read == 120.0
    assert seen[0]["connect"] == DEFAULT_TIMEOUT.connect


async def test_a_body_cut_by_a_read_timeout_is_recorded_and_replayed_as_that_failure(
    tmp_path: Path,
) -> None:
    def network(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=HEAD, stream=_Cut(ANSWER[:2], httpx.ReadTimeout))

    fixture = await record_fixture(
        tmp_path / "cut", "openai:gpt-4.1-mini", MESSAGES,
        client_options=OPTIONS, transport=httpx.MockTransport(network),
    )  # fmt: skip
    assert fixture.error == "ReadTimeout"
    saved = orjson.loads((tmp_path / "cut/response.json").read_bytes())
    assert saved["status"] == 200 and saved["error"] == "ReadTimeout"
    assert load_fixture(tmp_path / "cut").error == "ReadTimeout"

    transport = ReplayTransport(tmp_path / "cut")
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"openai": {"api_key": "k"}},
        retry=lb.RetryPolicy(max_attempts=1),
    ) as client:
        with pytest.raises(lb.TimeoutError) as caught:
            await client.complete("openai:gpt-4.1-mini", MESSAGES)
    assert caught.value.partial is not None and caught.value.partial.text == "Hello"


async def test_no_answer_at_all_is_recorded_with_status_0_and_replayed(tmp_path: Path) -> None:
    def network(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    fixture = await record_fixture(
        tmp_path / "down", "openai:gpt-4.1-mini", MESSAGES,
        client_options=OPTIONS, transport=httpx.MockTransport(network),
    )  # fmt: skip
    assert (fixture.status, fixture.error) == (0, "ConnectError")
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(tmp_path / "down")),
        providers={"openai": {"api_key": "k"}},
        retry=lb.RetryPolicy(max_attempts=1),
    ) as client:
        with pytest.raises(lb.LLMBridgeError) as caught:
            await client.complete("openai:gpt-4.1-mini", MESSAGES)
    assert "connect" in str(caught.value).lower()


async def test_a_fixture_without_an_error_still_replays_whole(tmp_path: Path) -> None:
    def network(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=HEAD, content=b"".join(ANSWER))

    await record_fixture(
        tmp_path / "ok", "openai:gpt-4.1-mini", MESSAGES,
        client_options=OPTIONS, transport=httpx.MockTransport(network),
    )  # fmt: skip
    assert "error" not in orjson.loads((tmp_path / "ok/response.json").read_bytes())
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(tmp_path / "ok")),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        assert (await client.complete("openai:gpt-4.1-mini", MESSAGES)).text == "Hello"

"""Issue 34, item 13: with ``Telemetry(record_content=True)``, a key the server echoes into the
model's text (or into a mid-stream error's partial text) is scrubbed from
``gen_ai.output.messages``, as recordings scrub it. A real loopback server, on asyncio, uvloop
and trio."""

from __future__ import annotations

import json
from typing import Any

import anyio
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import SSE_HEAD, chunk, read_request, serve

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

pytestmark = pytest.mark.anyio

KEY = "sk-telemetry-ECHO-0123456789abcdef"
QUERY = "qk-telemetry-ECHO-fedcba9876543210"


def _echoed(head: bytes) -> str:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"authorization":
            return value.strip().decode().partition(" ")[2]
    return ""


def _chunk(content: str, finish: str | None = None) -> bytes:
    body: dict[str, Any] = {"id": "c", "object": "chat.completion.chunk", "created": 1}
    body["model"] = "m"
    body["choices"] = [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
    return chunk(b"data: " + orjson.dumps(body) + b"\n\n")


def _server(*, fail: bool):  # type: ignore[no-untyped-def]
    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        target = head.split(b" ")[1].decode()
        echoed = f"{_echoed(head)} and {target}"
        await stream.send(SSE_HEAD)
        await stream.send(_chunk("You sent "))
        await stream.send(_chunk(echoed))
        if fail:
            error = {"error": {"message": "boom", "type": "server_error"}}
            await stream.send(chunk(b"data: " + orjson.dumps(error) + b"\n\n") + b"0\r\n\r\n")
            return
        await stream.send(_chunk(".", "stop") + chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")

    return script


def _telemetry() -> tuple[lb.Telemetry, InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return lb.Telemetry(tracer_provider=provider, record_content=True), spans


@pytest.mark.parametrize("fail", [False, True], ids=["complete", "failed_midway"])
async def test_an_echoed_key_is_scrubbed_from_the_span_content(fail: bool) -> None:
    telemetry, spans = _telemetry()
    with anyio.fail_after(20):
        async with serve(_server(fail=fail)) as url:
            base = f"{url}/v1?api_key={QUERY}"
            options = {"base_url": base, "api_key": KEY}
            client = lb.Client(
                providers={"openai-compatible": options},
                telemetry=telemetry,
                retry=lb.RetryPolicy(max_attempts=1),
            )
            async with client:
                if fail:
                    with pytest.raises(lb.LLMBridgeError) as info:
                        await client.complete("openai-compatible:m", [lb.ChatMessage.user("hi")])
                    text = info.value.partial.text  # type: ignore[union-attr]
                else:
                    text = (
                        await client.complete("openai-compatible:m", [lb.ChatMessage.user("hi")])
                    ).text
    assert KEY in text and QUERY in text  # the app itself gets what the server sent
    (span,) = spans.get_finished_spans()
    attributes = dict(span.attributes or {})
    shown = json.dumps(attributes)
    assert KEY not in shown and QUERY not in shown, shown
    (answer,) = json.loads(attributes["gen_ai.output.messages"])
    content = answer["parts"][0]["content"]
    assert content.startswith("You sent <redacted> and ") and "<redacted>" in content[20:]


def test_the_request_secrets_are_those_recordings_scrub() -> None:
    from llmbridge.secrets import request_secrets

    token = "mcp-remote-TOKEN-0123456789"
    found = request_secrets(
        {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
        f"https://h/v1/models?key={QUERY}&alt=sse",
        {"mcp_servers": [{"name": "m", "authorization_token": token}], "max_tokens": 1024},
    )
    assert found == {KEY, QUERY, token}

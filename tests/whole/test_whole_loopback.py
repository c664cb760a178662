"""``complete(stream=False)`` over a real socket, per provider family, on every loop: the
request sent is the provider's non-streaming one (URL, body fields, ``accept``) and the whole
answer comes back as the ``ChatResponse`` (text, tool calls, finish, usage)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import read_request, serve
from tests.whole.bodies import CASES, Case

pytestmark = [pytest.mark.anyio, pytest.mark.io]


def _answer(body: bytes, content_type: bytes = b"application/json") -> bytes:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: " + content_type
    return head + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body


async def _call(case: Case, **options: Any) -> tuple[lb.ChatResponse[Any], bytes, Any]:
    seen: list[tuple[bytes, bytes]] = []

    async def script(stream: SocketStream) -> None:
        head, body = await read_request(stream)
        seen.append((head, body))
        await stream.send(_answer(orjson.dumps(case.answer)))

    async with serve(script) as url:
        async with httpx.AsyncClient() as http:
            config = {**case.config, "base_url": url + case.base_path}
            client = lb.Client(http_client=http, providers={case.provider: config})
            response = await client.complete(
                f"{case.provider}:{case.model}",
                [lb.ChatMessage.user("hi")],
                stream=False,
                **options,
            )
    ((head, body),) = seen
    return response, head, orjson.loads(body) if body else None


@pytest.mark.parametrize("case", CASES, ids=[c.provider for c in CASES])
async def test_complete_stream_false_sends_the_whole_request(case: Case) -> None:
    response, head, body = await _call(case)
    request_line = head.split(b"\r\n")[0].decode()
    assert request_line.startswith("POST ")
    path = request_line.split(" ")[1]
    assert path.endswith(case.path), path
    headers = {
        k.strip().lower(): v.strip()
        for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:])
    }
    assert headers[b"accept"] == b"application/json"
    case.check_body(body)
    assert response.text == case.text
    assert response.finish_reason == case.finish
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == case.tokens
    assert [(c.name, c.arguments) for c in response.tool_calls] == case.calls

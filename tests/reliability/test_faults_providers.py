"""Fault injection through the real IO path, for every provider (asyncio and trio).

Each provider's base fixture (``reliability_support.BASES``) is served by a loopback HTTP/1.1
server that then misbehaves: resets the connection, stalls, ends early, answers HTML or a JSON
error with 200, or a proxy 502/503. Huge, split, flooded and invalid bodies check that a good
stream still decodes exactly. For every break we check the typed error, that every event that
arrived was yielded first, that the partial response rides on the exception, and that the
connection pool holds no half-read connection afterwards.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.testing import check_invariants, merge_deltas
from tests.conftest import LOOPS
from tests.fakes import mock_client, sse_response
from tests.reliability.reliability_support import (
    FAMILY,
    PROVIDERS,
    Scene,
    base_fixture,
    collect,
    loopback,
    make_client,
    pool_is_clean,
    prefix_events,
    replace_delta,
    split_every,
    text_of,
    with_keepalives,
)
from tests.reliability.wire_builders import BUILDERS

pytestmark = pytest.mark.anyio
# The heaviest cases run once per wire family (presets share their family's decoder and IO).
FAMILY_REPRESENTATIVES = ["anthropic", "gemini", "mistral", "openai", "openai-responses"]


def on_loops(names: list[str]) -> pytest.MarkDecorator:
    """Each provider's case on asyncio, and one provider per wire family on every loop too:
    the IO path is one for all providers, only the decoders (sans-IO) differ between them."""
    cases = [
        pytest.param(LOOPS[loop], name, id=f"{loop}-{name}")
        for name in names
        for loop in (LOOPS if name in FAMILY_REPRESENTATIVES else ["asyncio"])
    ]
    return pytest.mark.parametrize(("anyio_backend", "name"), cases)


every_provider = on_loops(PROVIDERS)

HTML = b"<html><body><h1>Corporate proxy: please log in</h1></body></html>"
JSON_ERRORS: dict[str, dict[str, Any]] = {
    "chat": {"error": {"message": "upstream warming up", "type": "server_error", "code": None}},
    "responses": {"error": {"message": "upstream warming up", "type": "server_error"}},
    "anthropic": {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "upstream warming up"},
    },
    "gemini": {"error": {"code": 503, "message": "upstream warming up", "status": "UNAVAILABLE"}},
}


def _cut(body: bytes) -> tuple[bytes, bytes]:
    mid = len(body) // 2
    return body[:mid], body[mid:]


def _assert_broke_after_prefix(
    name: str,
    events: list[lb.StreamEvent],
    error: lb.LLMBridgeError | None,
    prefix: bytes,
    cls: type[lb.LLMBridgeError],
) -> None:
    fx = base_fixture(name)
    assert isinstance(error, cls), f"{name}: expected {cls.__name__}, got {error!r}"
    arrived = prefix_events(fx, prefix)
    assert arrived, "the cut must leave at least one event before the fault"
    assert merge_deltas(events) == merge_deltas(arrived), "every event that arrived is yielded"
    check_invariants(events, complete=False)
    assert error.provider == fx.provider
    assert error.partial is not None, "the partial response rides on the exception"
    assert error.partial.text == text_of(events)
    assert error.partial.finish_reason is None


async def _run_scene(name: str, scene: Scene, *, attempts: int = 1, read_timeout: float = 5.0):  # type: ignore[no-untyped-def]
    fx = base_fixture(name)
    async with loopback(scene, read_timeout=read_timeout) as http:
        client, provider = make_client(fx, http, attempts=attempts)
        with anyio.fail_after(20):
            events, error = await collect(client, provider, fx.request)
        assert pool_is_clean(http), "a connection was left open mid-response"
    return events, error


# -- the connection breaks ------------------------------------------------------------------


@every_provider
async def test_connection_reset_midway(name: str) -> None:
    head, _ = _cut(base_fixture(name).body)
    scene = Scene([head], ending="reset")
    events, error = await _run_scene(name, scene, attempts=3)
    _assert_broke_after_prefix(name, events, error, head, lb.StreamTruncatedError)
    assert scene.requests == 1, "never a retry once an event was yielded"


@every_provider
async def test_stall_longer_than_idle_timeout(name: str) -> None:
    head, _ = _cut(base_fixture(name).body)
    scene = Scene([head], ending="hang")
    with anyio.fail_after(5):
        events, error = await _run_scene(name, scene, attempts=3, read_timeout=0.1)
    _assert_broke_after_prefix(name, events, error, head, lb.TimeoutError)
    assert scene.requests == 1


@every_provider
async def test_body_ends_cleanly_mid_stream(name: str) -> None:
    head, _ = _cut(base_fixture(name).body)
    events, error = await _run_scene(name, Scene([head], ending="eof"))
    _assert_broke_after_prefix(name, events, error, head, lb.StreamTruncatedError)


@every_provider
async def test_chunked_body_terminated_early(name: str) -> None:
    head, _ = _cut(base_fixture(name).body)
    events, error = await _run_scene(name, Scene([head], ending="finish"))
    _assert_broke_after_prefix(name, events, error, head, lb.StreamTruncatedError)


@every_provider
async def test_content_length_longer_than_body(name: str) -> None:
    head, _ = _cut(base_fixture(name).body)
    events, error = await _run_scene(name, Scene([head], ending="short"))
    _assert_broke_after_prefix(name, events, error, head, lb.StreamTruncatedError)


# -- the answer is not an event stream ------------------------------------------------------


@every_provider
async def test_html_with_200_from_a_proxy(name: str) -> None:
    scene = Scene([HTML], headers={"content-type": "text/html; charset=utf-8"})
    events, error = await _run_scene(name, scene, attempts=3)
    assert events == []
    assert isinstance(error, lb.MalformedStreamError)
    assert error.status == 200 and "please log in" in str(error)
    assert error.partial is None
    assert scene.requests == 1, "a non-SSE 200 is not retried"


@every_provider
async def test_json_error_with_200(name: str) -> None:
    body = orjson.dumps(JSON_ERRORS[FAMILY[name]])
    scene = Scene([body], headers={"content-type": "application/json"})
    events, error = await _run_scene(name, scene)
    assert events == []
    assert isinstance(error, lb.APIError), repr(error)
    assert error.provider_message == "upstream warming up"
    assert "upstream warming up" in str(error)


@pytest.mark.parametrize("status", [502, 503])
@every_provider
async def test_proxy_5xx_html_is_retried_then_raised(name: str, status: int) -> None:
    page = f"<html><body>{status} Bad Gateway (nginx)</body></html>".encode()
    scene = Scene([page], status=status, headers={"content-type": "text/html"})
    events, error = await _run_scene(name, scene, attempts=3)
    assert events == []
    assert isinstance(error, lb.ServerError), repr(error)
    assert error.status == status and "Bad Gateway" in str(error)
    assert scene.requests == 3, "retried up to the attempt limit"


# -- odd but valid bodies decode exactly ----------------------------------------------------


@every_provider
async def test_invalid_utf8_becomes_replacement_characters(name: str) -> None:
    fx = base_fixture(name)
    body, expected = replace_delta(fx, "bad \ufffd\ufffd bytes")
    body = body.replace("bad \ufffd\ufffd bytes".encode(), b"bad \xff\xfe bytes")
    events, error = await _run_scene(name, Scene(split_every(body, 97)))
    assert error is None, repr(error)
    assert merge_deltas(events) == expected


@every_provider
async def test_multibyte_characters_split_across_chunks(name: str) -> None:
    fx = base_fixture(name)
    body, expected = replace_delta(fx, "héllo wörld — 日本語 🎉 ñ€𝄞")
    client, provider = make_client(fx, mock_client(lambda r: sse_response(split_every(body, 1))))
    events, error = await collect(client, provider, fx.request)
    assert error is None, repr(error)
    assert merge_deltas(events) == expected


@on_loops(FAMILY_REPRESENTATIVES)
async def test_ten_megabyte_single_event(name: str) -> None:
    fx = base_fixture(name)
    unit = "lorem ipsum é 日本 🎉 "
    huge = unit * (10 * 1024 * 1024 // len(unit.encode()) + 1)
    body, expected = replace_delta(fx, huge)
    assert len(body) > 10 * 1024 * 1024
    events, error = await _run_scene(name, Scene(split_every(body, 1 << 16)))
    assert error is None, repr(error)
    assert merge_deltas(events) == expected


@every_provider
async def test_a_thousand_tool_calls_in_one_response(name: str) -> None:
    body = BUILDERS[FAMILY[name]](1000)
    events, error = await _run_scene(name, Scene(split_every(body, 1 << 14)))
    assert error is None, repr(error)
    check_invariants(events)
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.name, e.arguments) for e in ends] == [("lookup", {"i": i}) for i in range(1000)]
    assert len({e.id for e in ends}) == 1000
    finish = events[-1]
    assert isinstance(finish, lb.Finish) and finish.reason == "tool_calls"


@every_provider
async def test_keepalive_comment_flood(name: str) -> None:
    fx = base_fixture(name)
    body = with_keepalives(fx.body, per_gap=2000)
    assert body.count(b": keep-alive") >= 2000 * 3
    events, error = await _run_scene(name, Scene(split_every(body, 4096)))
    assert error is None, repr(error)
    assert merge_deltas(events) == merge_deltas(fx.events or [])


@on_loops(FAMILY_REPRESENTATIVES)
async def test_whole_stream_one_byte_per_socket_write_is_exact(name: str) -> None:
    fx = base_fixture(name)
    events, error = await _run_scene(name, Scene(split_every(fx.body, 1)))
    assert error is None, repr(error)
    assert merge_deltas(events) == merge_deltas(fx.events or [])


@pytest.mark.parametrize("name", PROVIDERS)
def test_every_provider_has_a_base_fixture_with_a_delta(name: str) -> None:
    fx = base_fixture(name)
    assert fx.status == 200 and fx.events and isinstance(fx.events[-1], lb.Finish)
    replace_delta(fx, "x")  # raises when the fixture has no swappable delta
    assert httpx.URL(fx.http_request["url"]).host  # a real provider URL that we redirect

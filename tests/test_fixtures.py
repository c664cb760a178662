"""Every fixture under fixtures/ checked in both directions, pure (no IO):

the provider still builds the recorded request, and its decoder still yields the golden events,
whole and split at every offset. A stream that ends in an error keeps the events before it in
``events.json`` and the error in ``error.json``. ``LLMBRIDGE_REGENERATE=1`` rewrites the goldens
on purpose.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, ReadsRateLimits, create_provider
from llmbridge.providers.http_errors import request_id_from
from llmbridge.testing import (
    ReplayTransport,
    assert_split_invariant,
    check_invariants,
    decode_collect,
    load_fixture,
    merge_deltas,
)
from llmbridge.testing.fixtures import dump_json
from llmbridge.testing.prepared import prepared_decoder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ALL = sorted(p.parent for p in FIXTURES.glob("*/*/input.json"))
REGENERATE = os.environ.get("LLMBRIDGE_REGENERATE") == "1"


def _provider(fx_path: Path):  # type: ignore[no-untyped-def]
    fx = load_fixture(fx_path)
    config = ProviderConfig.from_mapping({**fx.provider_config, "api_key": "test-key"})
    return fx, create_provider(fx.provider, config)


def _as_the_client_yields(fx: Any, provider: Any) -> list[lb.StreamEvent]:
    """The golden (decoder) events with what only the response headers know, which the client
    adds to the ``StreamStart``: the request id and the rate limits."""
    limit = provider.read_rate_limit(fx.headers) if isinstance(provider, ReadsRateLimits) else None
    stamp = {"request_id": request_id_from(fx.headers), "rate_limit": limit}
    out: list[lb.StreamEvent] = []
    for event in fx.events or []:
        if isinstance(event, lb.StreamStart) and stamp:
            event = dataclasses.replace(event, **stamp)
            stamp = {}
        out.append(event)
    return out


@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}/{p.name}" for p in ALL])
def test_encoder_builds_recorded_request(path: Path) -> None:
    fx, provider = _provider(path)
    built = provider.build_request(fx.request)
    got = {
        "method": built.method,
        "url": built.url,
        "headers": {k.lower(): v for k, v in built.redacted_headers().items()},
        "body": built.json,
    }
    if REGENERATE:
        dump_json(path / "request.json", got)
        return
    recorded = dict(fx.http_request)
    recorded["headers"] = {k.lower(): v for k, v in recorded.get("headers", {}).items()}
    assert got == recorded


@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}/{p.name}" for p in ALL])
def test_decoder_yields_golden_events(path: Path) -> None:
    fx, provider = _provider(path)
    if fx.status != 200:
        pytest.skip("HTTP error responses are covered through the client")
    framing = getattr(provider, "framing", "sse")
    events, error = decode_collect(
        prepared_decoder(provider, fx.request)(), fx.body_chunks(), framing=framing
    )
    error_file = path / "error.json"
    if REGENERATE:
        fx.save_events(events)
        if error is not None:
            dump_json(error_file, {"class": type(error).__name__, "message": error.message})
        return
    assert events == fx.events
    check_invariants(events, complete=error is None)
    if error_file.exists() or error is not None:
        recorded = orjson.loads(error_file.read_bytes()) if error_file.exists() else None
        got = {"class": type(error).__name__, "message": error.message} if error else None
        assert got == recorded


@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}/{p.name}" for p in ALL])
def test_decoder_split_invariance(path: Path) -> None:
    fx, provider = _provider(path)
    if fx.status != 200:
        pytest.skip("HTTP error responses are covered through the client")
    assert_split_invariant(
        prepared_decoder(provider, fx.request),
        fx.body,
        max_splits=400,
        framing=getattr(provider, "framing", "sse"),
    )


@pytest.mark.anyio
@pytest.mark.parametrize("path", ALL, ids=[f"{p.parent.name}/{p.name}" for p in ALL])
async def test_replay_through_client(path: Path) -> None:
    """The whole IO path: the client sends the recorded request and yields the golden events."""
    fx = load_fixture(path)
    transport = ReplayTransport(fx, chunk_size=7)
    config = {**fx.provider_config, "api_key": "test-key"}
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={fx.provider: config},
        retry=lb.RetryPolicy(max_attempts=1),
    )
    provider, _ = client.resolve(fx.model)
    events: list[lb.StreamEvent] = []
    error: lb.LLMBridgeError | None = None
    try:
        async for event in client.stream_request(provider, fx.request):
            events.append(event)
    except lb.LLMBridgeError as exc:
        error = exc
    transport.assert_all_played()
    error_file = path / "error.json"
    if fx.status != 200:
        assert error is not None and error.status == fx.status
        return
    assert merge_deltas(events) == merge_deltas(_as_the_client_yields(fx, provider))
    if error_file.exists():
        assert error is not None
        assert type(error).__name__ == orjson.loads(error_file.read_bytes())["class"]
        assert error.partial is not None or not events
    else:
        assert error is None

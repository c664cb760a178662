"""Providers written before ``prepare`` (``build_request`` + ``new_decoder``) keep working
through ``providers.adapter.prepared_of``: the ``llmbridge-echo`` example, unchanged, streams
its fixture through the normal client, and its decoders get ``held`` / ``resume_point``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, register_provider
from llmbridge.providers.adapter import Prepares, prepared_of
from llmbridge.testing import load_fixture, replay_client

pytestmark = pytest.mark.anyio

ECHO = Path(__file__).resolve().parents[2] / "examples" / "llmbridge-echo"


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(ECHO / "src"))
    import llmbridge_echo

    from llmbridge.providers import registry

    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
    register_provider("echo", llmbridge_echo.create, replace=True)
    yield llmbridge_echo
    sys.modules.pop("llmbridge_echo", None)


async def test_the_echo_plugin_streams_its_fixture_unchanged(echo: Any, anyio_backend: Any) -> None:
    fixture = load_fixture(ECHO / "fixtures" / "echo" / "tool_call")
    async with lb.Client(http_client=replay_client(fixture.path)) as client:
        stream = client.stream("echo:echo-1", fixture.request.messages, tools=fixture.request.tools)
        events = [event async for event in stream]
    assert events == fixture.events


def test_an_old_protocol_provider_is_prepared_by_the_adapter(echo: Any) -> None:
    provider = echo.create(ProviderConfig())
    assert not isinstance(provider, Prepares)
    request = lb.ChatRequest(model="echo-1", messages=[lb.ChatMessage.user("hi")])
    prepared = prepared_of(provider, request)
    assert prepared.http.json == provider.build_request(request).json
    assert prepared.framing == "sse" and prepared.read_rate_limit is None
    assert prepared.warnings == ()
    decoder = prepared.new_decoder()
    assert decoder.held() == [] and decoder.resume_point() is None
    assert decoder.feed("message_start", '{"id": "r", "model": "echo-1"}')

"""llmbridge.testing as apps use it: record with redaction, replay with request checks, sync twin."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayMismatch, ReplayTransport, load_fixture, record_fixture
from tests.fakes import FakeProvider, sse_body, sse_response

pytestmark = pytest.mark.usefixtures("fake_registered")

BODY = sse_body({"text": "Hi "}, {"text": "there"}, {"finish": "stop"})
SECRET = "sk-live-abcdefghijklmnop1234"


def _upstream(request: httpx.Request) -> httpx.Response:
    return sse_response(
        [BODY[:10], BODY[10:]],
        **{
            "set-cookie": "session=abc",
            "openai-organization": "org-123",
            "cf-ray": "8f-XYZ",
            "x-kept": "yes",
        },
    )


@pytest.mark.anyio
async def test_record_redacts_secrets_and_replay_reproduces(tmp_path: Path) -> None:
    path = tmp_path / "fake" / "hello"
    await record_fixture(
        path,
        "fake:m1",
        [lb.ChatMessage.user("hi")],
        client_options={"providers": {"fake": {"api_key": SECRET}}},
        transport=httpx.MockTransport(_upstream),
    )
    raw = "".join(p.read_text() for p in path.iterdir())
    assert SECRET not in raw
    assert "org-123" not in raw and "session=abc" not in raw and "8f-XYZ" not in raw
    meta = json.loads((path / "response.json").read_text())
    assert meta["headers"]["x-kept"] == "yes" and meta["chunks"] == [10, len(BODY) - 10]
    request = json.loads((path / "request.json").read_text())
    assert request["headers"]["authorization"] == "<redacted>"

    fixture = load_fixture(path)
    transport = ReplayTransport(fixture)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport), providers={"fake": {"api_key": "other"}}
    )
    resp = await client.complete("fake:m1", [lb.ChatMessage.user("hi")])
    assert resp.text == "Hi there"
    assert [e.type for e in fixture.events or []] == ["text_delta", "text_delta", "finish"]


@pytest.mark.anyio
async def test_replay_mismatch_shows_a_diff_and_strict_mode_flags_unplayed(tmp_path: Path) -> None:
    path = tmp_path / "fake" / "hello"
    await record_fixture(
        path, "fake:m1", [lb.ChatMessage.user("hi")], transport=httpx.MockTransport(_upstream)
    )
    client = lb.Client(http_client=httpx.AsyncClient(transport=ReplayTransport(path)))
    with pytest.raises(ReplayMismatch) as info:
        await client.complete("fake:m1", [lb.ChatMessage.user("hello?")])
    message = str(info.value)
    assert '-      "text": "hi"' in message and '+      "text": "hello?"' in message

    unplayed = ReplayTransport([path, path])
    client = lb.Client(http_client=httpx.AsyncClient(transport=unplayed))
    await client.complete("fake:m1", [lb.ChatMessage.user("hi")])
    with pytest.raises(ReplayMismatch, match="never played"):
        await unplayed.aclose()


def test_sync_client_has_the_same_behaviour() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return sse_response(BODY)

    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    ) as client:
        events = list(client.stream("fake:m", [lb.ChatMessage.user("hi")]))
        assert [e.type for e in events] == ["text_delta", "text_delta", "finish"]
        assert client.complete("fake:m", [lb.ChatMessage.user("hi")]).text == "Hi there"
        for _ in client.stream("fake:m", [lb.ChatMessage.user("hi")]):
            break

    def failing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": "bad key"}})

    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(failing))
    ) as client:
        with pytest.raises(lb.AuthenticationError, match="bad key"):
            client.complete("fake:m", [lb.ChatMessage.user("hi")])


def test_keys_never_show_in_reprs_or_errors() -> None:
    provider = FakeProvider(lb.ProviderConfig.from_mapping({"api_key": SECRET}))
    request = provider.build_request(lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("x")]))
    assert SECRET not in repr(request) and SECRET not in repr(
        lb.ProviderConfig.from_mapping({"api_key": SECRET})
    )
    assert SECRET in request.headers["authorization"]
    with pytest.raises(lb.ConfigurationError) as info:
        lb.ProviderConfig(env={}).key("NOPE_KEY", provider="x")
    assert "NOPE_KEY" in str(info.value)


@pytest.mark.anyio
async def test_record_keeps_replayable_provider_options_but_not_the_key(tmp_path: Path) -> None:
    path = tmp_path / "fake" / "opts"
    options = {"api_key": SECRET, "base_url": "https://fake.test/v1"}
    fixture = await record_fixture(
        path,
        "fake:m1",
        [lb.ChatMessage.user("hi")],
        client_options={"providers": {"fake": options}},
        transport=httpx.MockTransport(_upstream),
    )
    assert fixture.provider_config == {"base_url": "https://fake.test/v1"}
    assert load_fixture(path).provider_config == {"base_url": "https://fake.test/v1"}


@pytest.mark.anyio
async def test_mismatch_diff_is_not_buried_when_the_client_closes(tmp_path: Path) -> None:
    path = tmp_path / "fake" / "hello"
    await record_fixture(
        path, "fake:m1", [lb.ChatMessage.user("hi")], transport=httpx.MockTransport(_upstream)
    )
    with pytest.raises(ReplayMismatch, match="body differs"):
        async with httpx.AsyncClient(transport=ReplayTransport([path, path])) as http:
            await lb.Client(http_client=http).complete("fake:m1", [lb.ChatMessage.user("other")])


def test_sync_client_runs_the_tool_loop_over_replayed_turns() -> None:
    from llmbridge.testing import replay_client

    examples = Path(__file__).resolve().parents[1] / "examples" / "fixtures" / "openai"
    turns = [examples / "weather_call", examples / "weather_answer"]
    if not all(t.exists() for t in turns):
        pytest.skip("example fixtures are absent")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tool_loop_example", turns[0].parents[2] / "tool_loop.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with lb.SyncClient(
        http_client=replay_client(turns), providers={"openai": {"api_key": "k"}}
    ) as client:
        registry = lb.ToolRegistry([lb.tool(module.get_weather)])
        service = module.WeatherService({"Paris": "Sunny, 22 °C"})
        loop = client.run(
            module.MODEL, module.MESSAGES, tools=registry, max_steps=4, context=service
        )
        kinds = [event.type for event in loop]
    assert "tool_call_end" in kinds and "tool_result" in kinds and kinds[-1] == "finish"
    assert loop.stop_reason == "final" and loop.messages[-1].role == "assistant"

"""Embedding and rerank calls in cassettes (issue 46, item 6): the pytest plug-in records an
app's ``embed`` / ``rerank`` calls beside its chat calls and replays them offline with no key;
the pieces of a split call replay in whatever order the loop sends them; fixtures recorded
before (chat, no ``operation``) load and save as they were."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture
from llmbridge.testing.fixtures import Fixture
from tests.pytester_support import passed, plugin_args

pytest_plugins = ["pytester"]
REPO = Path(__file__).resolve().parents[2]

APP_TEST = """
import llmbridge as lb

async def test_retrieval(llmbridge_client):
    async with llmbridge_client as client:
        got = await client.embed("openai:text-embedding-3-small", ["a", "b"])
        many = await client.embed("cohere:embed-v4.0", [f"t{i}" for i in range(100)])
        answer = await client.complete("openai:gpt-4.1-mini", [lb.ChatMessage.user("Hi")])
        ranked = await client.rerank("cohere:rerank-v3.5", "q", ["x", "y", "z"], top_n=2)
    assert got.vectors == [[0.5, 0.25], [1.5, 0.25]]
    assert got.request_id is not None  # "<redacted>" in a replay, as chat's are
    assert many.vectors == [[float(i)] for i in range(100)]
    assert answer.text == "Hello"
    assert [r.index for r in ranked.results] == [2, 1]
"""

CONFTEST = """
import base64, struct
import httpx, orjson, pytest

CHUNK = {chunk!r}


def b64(v):
    return base64.b64encode(struct.pack(f"<{{len(v)}}f", *v)).decode()


def network(request):
    body = orjson.loads(request.content)
    path = request.url.path
    if path.endswith("/embeddings"):
        data = [{{"index": i, "embedding": b64([i + 0.5, 0.25])}} for i in range(len(body["input"]))]
        return httpx.Response(200, json={{"data": data, "model": "m"}}, headers={{"x-request-id": "req-1"}})
    if path.endswith("/v2/embed"):
        vectors = [[float(t[1:])] for t in body["texts"]]
        return httpx.Response(200, json={{"embeddings": {{"float": vectors}}}})
    if path.endswith("/v2/rerank"):
        results = [{{"index": i, "relevance_score": i / 10}} for i in range(3)]
        return httpx.Response(200, json={{"results": results[::-1][: body["top_n"]]}})
    return httpx.Response(200, headers={{"content-type": "text/event-stream"}}, content=CHUNK)


@pytest.fixture
def llmbridge_record_transport():
    return httpx.MockTransport(network)


@pytest.fixture
def llmbridge_providers():
    return {{"openai": {{"api_key": "sk-real-secret-key"}}, "cohere": {{"api_key": "co-secret-key"}}}}
"""

CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
    b'"delta":{"content":"Hello"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def test_the_plugin_records_embed_and_rerank_calls_and_replays_them_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "COHERE_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    pytester.makeconftest(CONFTEST.format(chunk=CHUNK))
    pytester.makepyfile(test_app=APP_TEST)
    passed(pytester.runpytest(*plugin_args(), "--llmbridge-record"))
    cassette = pytester.path / "cassettes" / "test_app" / "test_retrieval"
    steps = sorted(cassette.iterdir(), key=lambda p: int(p.name[4:]))
    inputs = [json.loads((p / "input.json").read_text()) for p in steps]
    assert [i.get("operation", "chat") for i in inputs] == [
        "embeddings",
        "embeddings",
        "embeddings",
        "chat",
        "rerank",
    ]
    assert inputs[0] == {"model": "openai:text-embedding-3-small", "operation": "embeddings"}
    assert [p.name for p in steps if (p / "events.json").exists()] == ["step4"]
    written = "".join(p.read_text() for p in cassette.rglob("*.json"))
    assert "sk-real-secret-key" not in written and "co-secret-key" not in written
    (pytester.path / "conftest.py").unlink()  # offline: the cassette alone, no key
    passed(pytester.runpytest(*plugin_args()))


def _answer(texts: list[str]) -> bytes:
    return orjson.dumps({"embeddings": {"float": [[float(t[1:])] for t in texts]}})


def _piece(path: Path, texts: list[str]) -> Fixture:
    body = {"model": "embed-v4.0", "texts": texts, "input_type": "search_document"}
    body["embedding_types"] = ["float"]
    return Fixture(
        path=path,
        model="cohere:embed-v4.0",
        request=lb.ChatRequest(model="embed-v4.0", messages=[]),
        provider_config={},
        http_request={
            "method": "POST",
            "url": "https://api.cohere.com/v2/embed",
            "headers": {},
            "body": body,
        },
        status=200,
        headers={"content-type": "application/json"},
        body=_answer(texts),
        operation="embeddings",
    )


@pytest.mark.anyio
@pytest.mark.loops
async def test_a_split_calls_pieces_replay_in_any_order(tmp_path: Path) -> None:
    texts = [f"t{i}" for i in range(250)]
    pieces = [texts[:96], texts[96:192], texts[192:]]
    for n, piece in reversed(list(enumerate(pieces))):  # saved last piece first
        _piece(tmp_path / f"step{3 - n}", piece).save()
    fixtures = [load_fixture(tmp_path / f"step{n}") for n in (1, 2, 3)]
    assert [f.operation for f in fixtures] == ["embeddings"] * 3
    transport = ReplayTransport(fixtures)
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"cohere": {"api_key": "dummy"}},
    ) as client:
        got = await client.embed("cohere:embed-v4.0", texts, max_concurrency=1)
    assert got.vectors == [[float(i)] for i in range(250)]
    transport.assert_all_played()


def test_a_chat_fixture_recorded_before_loads_and_saves_unchanged(tmp_path: Path) -> None:
    source = REPO / "examples/fixtures/openai/weather_call"
    fixture = load_fixture(source)
    assert fixture.operation == "chat" and fixture.request.messages
    copy = tmp_path / "weather_call"
    shutil.copytree(source, copy)
    fixture.path = copy
    fixture.save()
    for name in ("input.json", "request.json", "response.json", "events.json"):
        assert (copy / name).read_text() == (source / name).read_text(), name


def test_an_embedding_fixture_has_no_chat_fields(tmp_path: Path) -> None:
    _piece(tmp_path / "one", ["t1"]).save()
    written: dict[str, Any] = json.loads((tmp_path / "one" / "input.json").read_text())
    assert written == {"model": "cohere:embed-v4.0", "operation": "embeddings"}
    assert not (tmp_path / "one" / "events.json").exists()
    assert load_fixture(tmp_path / "one").body == _answer(["t1"])

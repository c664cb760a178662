"""A whole batch lifecycle in a cassette of the pytest plug-in: ``pytest --llmbridge-record``
saves the submit (the JSONL upload and the job), every poll of ``batch_wait``, and the result
files as fixture folders of operation ``batch``, the key redacted; a plain run replays them
offline with no key, and sleeps through none of the poll intervals the recording waited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llmbridge.batch.types  # noqa: F401 - loaded once, outside pytester's module snapshots
from tests.pytester_support import passed, plugin_args

pytest_plugins = ["pytester"]

APP_TEST = r"""
import time
from pathlib import Path

import llmbridge as lb

IDS = ["a", "b-fail", "c-expire", "d"]


async def test_labelling(llmbridge_client):
    requests = [lb.BatchRequest(i, [lb.ChatMessage.user(f"label {i}")], max_tokens=5) for i in IDS]
    heard = []
    async with llmbridge_client as client:
        job = await client.batch("openai:gpt-4.1-mini", requests)
        started = time.monotonic()
        job = await client.batch_wait(
            job, poll_interval=0.4, max_interval=0.4, on_progress=lambda j: heard.append(j.status)
        )
        waited = time.monotonic() - started
        results = {r.id: r async for r in client.batch_results(job)}
    with Path("waited.txt").open("a") as out:
        out.write(f"{waited} {len(heard)}\n")
    assert heard[-1] == "completed" and job.counts.total == 4
    assert results["a"].response.text == "echo: label a"
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
    assert results["c-expire"].status == "expired"
"""

CONFTEST = """
import pytest

from tests.batch.server_transport import ServerTransport
from tests.batch.servers import OpenAIServer


@pytest.fixture
def llmbridge_record_transport():
    return ServerTransport(OpenAIServer(polls_to_end=3))


@pytest.fixture
def llmbridge_providers():
    return {"openai": {"api_key": "sk-batch-secret-key", "base_url": "http://batch.test/v1"}}
"""


def _waited(path: Path) -> list[tuple[float, int]]:
    """Each run's wait and polls (a test runs once per event loop the suite's plug-ins give)."""
    rows = [line.split() for line in (path / "waited.txt").read_text().splitlines()]
    return [(float(w), int(n)) for w, n in rows]


def test_a_batch_lifecycle_records_and_replays_offline_without_waiting(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_app=APP_TEST)
    passed(pytester.runpytest(*plugin_args(), "--llmbridge-record"))
    (recorded_wait, recorded_polls), *replays = _waited(pytester.path)  # later runs replay
    assert recorded_polls == 3 and recorded_wait >= 0.8  # two real intervals of 0.4 s
    assert all(polls == 3 and wait < 0.3 for wait, polls in replays)
    cassette = pytester.path / "cassettes" / "test_app" / "test_labelling"
    steps = sorted(cassette.iterdir(), key=lambda p: int(p.name[4:]))
    inputs = [json.loads((p / "input.json").read_text()) for p in steps]
    assert {i.get("operation") for i in inputs} == {"batch"}
    assert all(i["model"] == "openai:gpt-4.1-mini" for i in inputs)
    sent = [json.loads((p / "request.json").read_text()) for p in steps]
    paths = [(r["method"], r["url"].split("batch.test")[1]) for r in sent]
    assert paths[:2] == [("POST", "/v1/files"), ("POST", "/v1/batches")]
    assert [m for m, u in paths[2:5]] == ["GET"] * 3 and all(
        "/batches/" in u for _, u in paths[2:5]
    )
    assert [u.endswith("/content") for _, u in paths[5:]] == [True, True]  # output, error files
    written = "".join(p.read_text() for p in cassette.rglob("*.json"))
    assert "sk-batch-secret-key" not in written
    (pytester.path / "conftest.py").unlink()  # offline: the cassette alone, no key
    (pytester.path / "waited.txt").unlink()
    passed(pytester.runpytest(*plugin_args()))
    replayed = _waited(pytester.path)
    assert replayed and all(polls == 3 and wait < 0.3 for wait, polls in replayed)  # collapsed


GEMINI_APP = r"""
import llmbridge as lb


async def test_file_job(llmbridge_client):
    requests = [lb.BatchRequest(i, [lb.ChatMessage.user(f"hi {i}")]) for i in ("a", "b-fail")]
    async with llmbridge_client as client:
        job = await client.batch("gemini:gemini-2.5-flash", requests, input_file=True)
        job = await client.batch_wait(job, poll_interval=0.2, max_interval=0.2)
        results = {r.id: r async for r in client.batch_results(job)}
    assert results["a"].response.text == "echo: hi a"
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
"""

GEMINI_CONFTEST = """
import pytest

from tests.batch.gemini_files_server import GeminiFileServer
from tests.batch.server_transport import ServerTransport


@pytest.fixture
def llmbridge_record_transport():
    return ServerTransport(GeminiFileServer(polls_to_end=1))


@pytest.fixture
def llmbridge_providers():
    return {"gemini": {"api_key": "gm-batch-secret-key", "base_url": "http://gemini.test"}}
"""


def test_a_gemini_file_job_records_and_replays(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    pytester.makeconftest(GEMINI_CONFTEST)
    pytester.makepyfile(test_app=GEMINI_APP)
    passed(pytester.runpytest(*plugin_args(), "--llmbridge-record"))
    cassette = pytester.path / "cassettes" / "test_app" / "test_file_job"
    steps = sorted(cassette.iterdir(), key=lambda p: int(p.name[4:]))
    sent = [json.loads((p / "request.json").read_text()) for p in steps]
    assert [r["url"].split("gemini.test")[1].split("?")[0] for r in sent[:3]] == [
        "/upload/v1beta/files",
        "/upload/v1beta/files",
        "/v1beta/models/gemini-2.5-flash:batchGenerateContent",
    ]
    assert sent[-1]["url"].endswith(":download?alt=media")
    assert "gm-batch-secret-key" not in "".join(p.read_text() for p in cassette.rglob("*.json"))
    (pytester.path / "conftest.py").unlink()
    passed(pytester.runpytest(*plugin_args()))

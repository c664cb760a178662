"""The pytest plug-in (issue 35, item 13), run the way an app's suite runs it: replay from a
cassette with no key and no URL, a missing cassette says how to record, ``--llmbridge-record``
records what is missing (never in CI), and the next run replays it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pytester_support import passed, plugin_args

REPO = Path(__file__).resolve().parents[1]
TURNS = [REPO / "examples/fixtures/openai/weather_call", REPO / "examples/fixtures/openai/weather_answer"]  # fmt: skip
pytest_plugins = ["pytester"]

TEST_FILE = '''
import llmbridge as lb
import pytest

@lb.tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return "Sunny, 22 °C"

MESSAGES = [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("What's the weather in Paris?")]

{marker}
async def test_weather(llmbridge_client):
    async with llmbridge_client as client:
        loop = client.run("openai:gpt-4.1-mini", MESSAGES, tools=[get_weather])
        async for _ in loop:
            pass
    assert loop.messages[-1].text == "It's sunny and 22 °C in Paris."
'''


@pytest.fixture
def app(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for var in ("OPENAI_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    return pytester


def test_replays_a_marked_cassette_with_no_key_and_no_marker(app: pytest.Pytester) -> None:
    paths = ", ".join(repr(str(p)) for p in TURNS)
    app.makepyfile(test_app=TEST_FILE.format(marker=f"@pytest.mark.llmbridge_cassette({paths})"))
    passed(app.runpytest(*plugin_args()))


def test_a_missing_cassette_says_how_to_record(app: pytest.Pytester) -> None:
    app.makepyfile(test_app=TEST_FILE.format(marker=""))
    result = app.runpytest(*plugin_args())
    assert result.parseoutcomes().get("passed", 0) == 0
    result.stdout.fnmatch_lines(["*no llmbridge cassette*pytest --llmbridge-record*"])


def test_a_marker_path_that_holds_no_fixture_names_where_it_looked(app: pytest.Pytester) -> None:
    app.makepyfile(test_app=TEST_FILE.format(marker='@pytest.mark.llmbridge_cassette("nowhere/x")'))
    result = app.runpytest(*plugin_args())
    assert result.parseoutcomes().get("passed", 0) == 0
    looked = app.path / "nowhere" / "x"
    result.stdout.fnmatch_lines([f"*no llmbridge cassette for this test at {looked} (*rootdir*"])


def test_record_then_replay(app: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    conftest = f"""
import pytest
from llmbridge.testing import ReplayTransport

@pytest.fixture
def llmbridge_record_transport():  # "the network": the example recordings
    return ReplayTransport({[str(p) for p in TURNS]!r})

@pytest.fixture
def llmbridge_providers():
    return {{"openai": {{"api_key": "sk-real-secret-key"}}}}
"""
    app.makeconftest(conftest)
    app.makepyfile(test_app=TEST_FILE.format(marker=""))
    passed(app.runpytest(*plugin_args(), "--llmbridge-record"))
    cassette = app.path / "cassettes" / "test_app" / "test_weather"
    assert sorted(p.name for p in cassette.iterdir()) == ["step1", "step2"]
    for step, source in zip(("step1", "step2"), TURNS, strict=True):
        for name in ("request.json", "response.sse", "events.json"):
            assert (cassette / step / name).read_text() == (source / name).read_text()
    written = "".join(p.read_text() for p in cassette.rglob("*.json"))
    assert "sk-real-secret-key" not in written
    (app.path / "conftest.py").unlink()  # the replay needs neither key nor transport
    passed(app.runpytest(*plugin_args()))
    app.makepyfile(test_other=TEST_FILE.format(marker=""))
    monkeypatch.setenv("CI", "true")
    result = app.runpytest(*plugin_args(), "--llmbridge-record", "test_other.py")
    assert result.parseoutcomes().get("passed", 0) == 0
    result.stdout.fnmatch_lines(["*never the network*"])


CHAIN_TEST = """
import llmbridge as lb

async def test_chain(llmbridge_client):
    async with llmbridge_client as client:
        answer = await client.complete(
            ["openai:gpt-4.1-mini", "openai:gpt-4o-mini"], [lb.ChatMessage.user("Hi")]
        )
    assert answer.text == "Hello"
"""

CHAIN_CONFTEST = """
import httpx
import pytest

ANSWER = {answer!r}


class Quiet(httpx.AsyncByteStream):
    async def __aiter__(self):
        yield ANSWER[:40]
        raise httpx.ReadTimeout("the slow model went quiet")


def network(request):
    if b"gpt-4.1-mini" in request.content:  # the first model stops answering midway
        return httpx.Response(200, headers={{"content-type": "text/event-stream"}}, stream=Quiet())
    return httpx.Response(200, headers={{"content-type": "text/event-stream"}}, content=ANSWER)


@pytest.fixture
def llmbridge_record_transport():
    return httpx.MockTransport(network)


@pytest.fixture
def llmbridge_providers():
    return {{"openai": {{"api_key": "sk-real-secret-key"}}}}
"""


def test_a_failed_attempt_of_a_chain_is_recorded_as_the_failure_it_was(
    app: pytest.Pytester,
) -> None:
    """Issue 44, item 1: the first model's read timeout is saved as a timeout, not as a good
    200 with the body cut short, and the replay takes the route the recording took."""
    chunk = (
        b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
        b'"delta":{"content":"Hello"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    app.makeconftest(CHAIN_CONFTEST.format(answer=chunk))
    app.makepyfile(test_app=CHAIN_TEST)
    passed(app.runpytest(*plugin_args(), "--llmbridge-record"))
    cassette = app.path / "cassettes" / "test_app" / "test_chain"
    first = json.loads((cassette / "step1" / "response.json").read_text())
    second = json.loads((cassette / "step2" / "response.json").read_text())
    assert first["error"] == "ReadTimeout" and "error" not in second
    (app.path / "conftest.py").unlink()  # offline: the cassette alone
    passed(app.runpytest(*plugin_args()))

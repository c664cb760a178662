"""The llmbridge pytest plug-in: record an app's LLM calls once, replay them in every run.

Loaded through the ``pytest11`` entry point when llmbridge is installed (or with
``-p llmbridge.testing.pytest_plugin``). In the style of pytest-recording:

* The ``llmbridge_client`` fixture is an ``lb.Client`` for the test. Without a switch it
  *replays* the test's cassette: the recorded interactions, served in order through the real
  client (each request checked against the recorded one), with the provider, base URL and flags
  read from the cassette itself and a dummy key, so the test needs no key, no URL and no
  network. A missing cassette fails the test and says how to record it.
* ``pytest --llmbridge-record`` records what is missing: a test whose cassette does not exist
  talks to the real provider (keys from the environment, options from the
  ``llmbridge_providers`` fixture) and saves each request as a fixture folder; tests with a
  cassette still replay. It refuses to run when ``CI`` is set: CI never reaches the network.
* A test's cassette is ``<test file's folder>/cassettes/<module>/<test name>/`` (shared by its
  parametrized runs; one folder per request: ``step1``, ``step2``, ...; a single request is the folder itself), or the folders
  named by ``@pytest.mark.llmbridge_cassette("path", ...)`` (relative to the rootdir).
* An ``async def`` test that uses the fixture and has no async marker is marked
  ``pytest.mark.anyio`` (anyio's pytest plug-in runs it).
* Recording redacts every credential, as ``llmbridge.testing.record_fixture`` does.
* ``embed`` / ``embed_many`` / ``rerank`` calls are recorded and replayed the same way
  (``llmbridge.testing.embed_cassettes``), and so is a whole batch job's lifecycle (submit,
  each poll, cancel, results; ``llmbridge.testing.batch_recording``): a replay sleeps through
  no poll interval (the replaying client's waits are collapsed).
* MCP servers the test connects (``MCPServers``, ``connect_stdio``, ...) are recorded too, in
  the cassette's ``mcp.json``, and a replay serves them from it: no process, no ``npx``
  (``llmbridge.testing.mcp_cassette``).
* ``@pytest.mark.llmbridge(match_ignore=["metadata.id", "messages.*.content"])``: request fields
  that may differ from the recording (``llmbridge.testing.matching``).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the rest loads when a test asks for the fixture, not at pytest's start
    from ..client import Client
    from ..events import StreamEvent
    from ..providers.base import Provider
    from ..request import ChatRequest
    from .record import RecordingTransport
    from .replay import ReplayTransport

__all__ = [
    "DUMMY_KEY",
    "cassette_paths",
    "llmbridge_client",
    "llmbridge_providers",
    "llmbridge_record_transport",
]

DUMMY_KEY = "llmbridge-replay-key"
"""The key a replaying client sends (the recorded request has ``<redacted>`` there)."""
_STEP = re.compile(r"^step(\d+)$")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("llmbridge")
    group.addoption(
        "--llmbridge-record",
        action="store_true",
        default=False,
        help="llmbridge: record the cassettes that are missing (real provider calls); "
        "tests with a cassette replay it",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "llmbridge_cassette(*paths): the fixture folders the llmbridge_client fixture replays",
    )
    config.addinivalue_line(
        "markers",
        "llmbridge(match_ignore=[...]): request fields a replay lets differ (dotted paths)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    async_marks = {"anyio", "asyncio", "trio"}
    for item in items:
        function = getattr(item, "function", None)
        if (
            "llmbridge_client" in getattr(item, "fixturenames", ())
            and inspect.iscoroutinefunction(function)
            and not any(m.name in async_marks for m in item.iter_markers())
        ):
            item.add_marker(pytest.mark.anyio)


def cassette_paths(request: pytest.FixtureRequest) -> tuple[Path, list[Path]]:
    """The test's cassette folder and the fixture folders in it, in order (none: missing)."""
    marker = request.node.get_closest_marker("llmbridge_cassette")
    if marker is not None and marker.args:
        paths = [Path(request.config.rootpath) / str(p) for p in marker.args]
        return paths[0], [p for path in paths for p in _steps(path)]
    test_file = Path(str(request.node.path))
    node = request.node  # parametrized runs (event loops, ...) share one cassette
    name = re.sub(r"[^\w.-]+", "_", getattr(node, "originalname", None) or node.name)
    folder = test_file.parent / "cassettes" / test_file.stem / name
    return folder, _steps(folder)


def _steps(folder: Path) -> list[Path]:
    if (folder / "input.json").is_file():
        return [folder]
    steps = [p for p in folder.glob("step*") if _STEP.match(p.name)] if folder.is_dir() else []
    return sorted(steps, key=lambda p: int(_STEP.match(p.name).group(1)))  # type: ignore[union-attr]


@pytest.fixture
def llmbridge_providers() -> dict[str, Any]:
    """Provider options for *recording* (``Client(providers=...)``), e.g. a local server's
    ``base_url``; override it in a ``conftest.py``. Replay reads them from the cassette."""
    return {}


@pytest.fixture
def llmbridge_record_transport() -> Any:
    """The transport recording goes through (``None``: the network); override it to record
    through a proxy transport, or, in tests of the plug-in, from another recording."""
    return None


def _recording_client(recorder: RecordingTransport | None = None, **options: Any) -> Any:
    """A ``Client`` that keeps each request it streams and its events, and the recordings of
    each embedding, rerank and batch call (``embed_recording``, ``batch_recording``), for
    saving."""
    from .batch_recording import BatchRecorded

    class RecordingClient(BatchRecorded):
        def __init__(self) -> None:
            super().__init__(**options)
            self.recorder = recorder
            self.calls: list[tuple[Provider, Any, Any]] = []

        def _stream(self, provider: Provider, request: ChatRequest, **more: Any) -> Any:
            events: list[StreamEvent] = []
            self.calls.append((provider, request, events))
            return _kept(super()._stream(provider, request, **more), events)

    return RecordingClient()


async def _kept(
    events: AsyncIterator[StreamEvent], into: list[StreamEvent]
) -> AsyncIterator[StreamEvent]:
    async for event in events:
        into.append(event)
        yield event


def _replaying(paths: list[Path], ignore: list[str]) -> tuple[Client, ReplayTransport]:
    import dataclasses

    import httpx

    from ..client import Client
    from ..stream import RetryPolicy
    from .batch_recording import collapsed_sleep
    from .fixtures import load_fixture
    from .replay import ReplayTransport

    fixtures = [load_fixture(p) for p in paths]
    providers: dict[str, dict[str, Any]] = {}
    for fixture in fixtures:
        providers.setdefault(fixture.provider, {**fixture.provider_config, "api_key": DUMMY_KEY})
    transport = ReplayTransport(fixtures, strict=False, match_ignore=ignore)
    client = Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers=providers,
        retry=RetryPolicy(max_attempts=1),
    )
    client._defaults = dataclasses.replace(client._defaults, sleep=collapsed_sleep)  # no waits
    return client, transport


def _scrubber(client: Any, recorder: RecordingTransport) -> Any:
    """Removes every credential the recording client and its transport saw."""
    from ..secrets import secret_scrubber

    secrets = set(recorder.secrets)
    for config in client._configs.values():
        secrets |= config.secrets()
    return secret_scrubber(secrets)


def _save(client: Any, recorder: RecordingTransport, folder: Path) -> None:
    from ..providers.config import ProviderConfig
    from .embed_cassettes import steps
    from .fixtures import Fixture
    from .record import replayable_config

    clean = _scrubber(client, recorder)
    count = len(recorder.recordings)
    for n, (rec, provider, request, events, operation) in enumerate(
        steps(recorder.recordings, client.calls)
    ):
        config = client._configs.get(provider.name, ProviderConfig())
        Fixture(
            path=folder if count == 1 else folder / f"step{n + 1}",
            model=f"{provider.name}:{request.model}",
            request=request,
            provider_config=replayable_config(config),
            http_request=rec.request,
            status=rec.status,
            headers=rec.headers,
            body=b"".join(rec.chunks),
            chunks=[len(c) for c in rec.chunks],
            events=events,
            error=rec.error,
            operation=operation,
        ).save(scrub=clean)


@pytest.fixture
def llmbridge_client(
    request: pytest.FixtureRequest,
    llmbridge_providers: dict[str, Any],
    llmbridge_record_transport: Any,
) -> Iterator[Client]:
    """An ``lb.Client`` replaying this test's cassette (see the module docstring)."""
    from .mcp_cassette import MCP_FILE, record_mcp, replay_mcp

    folder, steps = cassette_paths(request)
    marker = request.node.get_closest_marker("llmbridge")
    ignore = list((marker.kwargs if marker else {}).get("match_ignore", ()))
    if steps or (folder / MCP_FILE).is_file():
        client, transport = _replaying(steps, ignore)
        with contextlib.ExitStack() as stack:
            mcp = None
            if (folder / MCP_FILE).is_file():  # its MCP servers answer from the recording
                mcp = stack.enter_context(replay_mcp(folder, match_ignore=ignore))
            yield client
        if not _failed(request):
            transport.assert_all_played()
            if mcp is not None:
                mcp.assert_matched()
        return
    if not request.config.getoption("llmbridge_record"):
        marked = request.node.get_closest_marker("llmbridge_cassette") is not None
        where = (
            f" (the llmbridge_cassette marker's paths are relative to pytest's rootdir, "
            f"{request.config.rootpath})"
            if marked
            else ""
        )
        pytest.fail(
            f"no llmbridge cassette for this test at {folder}{where}: record it once with "
            "'pytest --llmbridge-record' (real provider calls, keys from the environment)",
            pytrace=False,
        )
    if os.environ.get("CI"):
        pytest.fail("--llmbridge-record in CI: CI replays cassettes, never the network")
    from ..stream import RetryPolicy
    from .record import RecordingTransport, recording_http

    recorder = RecordingTransport(llmbridge_record_transport)
    recording = _recording_client(
        recorder,
        http_client=recording_http(recorder),
        providers=llmbridge_providers,
        retry=RetryPolicy(max_attempts=1),  # one HTTP request per stream: one fixture each
    )
    with record_mcp() as mcp_traffic:  # and what its MCP servers answer
        yield recording
    if not _failed(request):
        if recorder.recordings:
            _save(recording, recorder, folder)
        if mcp_traffic.servers:
            mcp_traffic.save(folder, scrub=_scrubber(recording, recorder))


def _failed(request: pytest.FixtureRequest) -> bool:
    report = getattr(request.node, "rep_call", None)
    return bool(report is not None and report.failed)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report

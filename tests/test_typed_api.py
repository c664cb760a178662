"""Types that help in an editor (issue 35, items 1-3): typed call options, a ``ChatResponse``
generic in ``parsed``, and a user script that passes ``mypy --strict --disallow-any-expr``.

The type checks run mypy through ``mypy.api`` on ``tests/typecheck/``: the user script must be
clean, and every misuse in ``rejected_options.py`` (marked ``# E: ...``) must be an error on
its own line. The runtime tests check that the typed signatures changed nothing a call does.
"""

from __future__ import annotations

import pickle
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.call_settings import CALL_OPTIONS
from llmbridge.client import request_options
from llmbridge.client.call_options import CallOptions, CountOptions, RunOptions
from llmbridge.client.model_chain import CHAIN_OPTIONS
from llmbridge.errors import UsageError
from llmbridge.providers.registry import register_provider
from tests.fakes import FakeProvider, mock_client, sse_body, sse_response
from tests.typecheck import user_script

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ROOT / "tests" / "typecheck"
FAKE = FakeProvider(lb.ProviderConfig.from_mapping({"api_key": "k"}))


def _mypy(*args: str) -> tuple[str, int]:
    """mypy as a user on this Python runs it (the gate in ``.ci/run`` checks 3.10, the oldest)."""
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--python-version", running]
    # the JSON cache, not the SQLite one: a run in this process could leave the database
    # locked for the next ("database is locked" on 3.13)
    flags = ["--strict", "--no-error-summary", "--no-sqlite-cache"]
    out, err, status = mypy_api.run([*config, *flags, *args])
    return out + err, status


MYPY_GROUP = pytest.mark.xdist_group("mypy")
"""The mypy runs share one worker, one after the other: they share mypy's cache (its SQLite
store is locked while a run writes it)."""


@MYPY_GROUP
def test_the_user_script_passes_strict_mypy_with_no_any_from_llmbridge() -> None:
    # --disallow-any-expr is the script's own (its first line): the mypy runs here share the
    # global options, so the second reuses the first one's cache instead of checking anew
    assert user_script.__file__ and Path(user_script.__file__).read_text().startswith(
        "# mypy: disallow-any-expr\n"
    )
    out, status = _mypy(str(CHECKED / "user_script.py"))
    assert status == 0, out


@MYPY_GROUP
def test_misused_options_and_results_are_type_errors() -> None:
    path = CHECKED / "rejected_options.py"
    out, status = _mypy(str(path))
    assert status == 1, out
    errors: dict[int, str] = {}
    for line in out.splitlines():
        match = re.match(rf"{re.escape(str(path))}:(\d+): error: (.*)", line)
        if match is None:
            match = re.match(r"tests/typecheck/rejected_options\.py:(\d+): error: (.*)", line)
        if match:
            errors[int(match[1])] = errors.get(int(match[1]), "") + match[2]
    marked = {
        n: text.split("# E:")[1].strip()
        for n, text in enumerate(path.read_text().splitlines(), 1)
        if "# E:" in text
    }
    assert len(marked) == 12
    missing = {n: what for n, what in marked.items() if n not in errors}
    assert not missing, f"mypy accepted these misuses: {missing}\n{out}"
    assert set(errors) == set(marked), out  # and nothing else was an error
    assert 'did you mean "max_tokens"' in errors[min(marked)]


def _keys(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


def test_the_typed_options_are_every_option_the_client_takes() -> None:
    """A setting added to ``build_request`` (or the call's, or a chain's) without a type here
    fails this test."""
    typed = _keys(CallOptions) | {
        "response_format",
        "rescue_tool_calls",
        "partial_tool_arguments",
    }
    runtime = request_options.REQUEST_OPTIONS | CALL_OPTIONS | CHAIN_OPTIONS
    assert runtime <= typed
    # timeout: typed now, taken at runtime once the transport's per-call deadline is merged
    assert typed - runtime <= {"timeout", "rescue_tool_calls", "partial_tool_arguments"}
    assert _keys(RunOptions) == _keys(CallOptions) - {"tools"}
    assert _keys(CountOptions) == _keys(RunOptions) - CHAIN_OPTIONS


def test_the_sync_client_takes_what_the_async_client_takes() -> None:
    import inspect

    for name in ("stream", "complete", "run", "count_tokens"):
        sync = inspect.signature(getattr(lb.SyncClient, name)).parameters
        aio = inspect.signature(getattr(lb.Client, name)).parameters
        assert list(sync) == list(aio), name
        assert [p.annotation for p in sync.values()] == [p.annotation for p in aio.values()]


# -- runtime: the typed signatures change nothing a call does --------------------------------


class Recipe(BaseModel):
    title: str
    minutes: int


def _server(*objs: Any) -> Any:
    return mock_client(lambda request: sse_response(sse_body(*objs)))


RECIPE = ({"text": '{"title": "Pasta", "minutes": 12}'}, {"finish": "stop"})


@pytest.mark.anyio
async def test_a_typed_response_is_a_plain_chat_response() -> None:
    async with lb.Client(http_client=_server(*RECIPE)) as client:
        resp = await client.complete((FAKE, "m"), "A recipe", response_format=Recipe)
    assert resp.parsed == Recipe(title="Pasta", minutes=12)
    assert type(resp) is lb.ChatResponse  # never a parametrized class at runtime
    assert repr(resp).startswith("ChatResponse(message=ChatMessage(")
    again = pickle.loads(pickle.dumps(resp))
    assert again == resp
    assert again.parsed.title == "Pasta"


@pytest.mark.anyio
async def test_a_response_without_a_format_parses_nothing() -> None:
    async with lb.Client(http_client=_server({"text": "hi"}, {"finish": "stop"})) as client:
        resp = await client.complete((FAKE, "m"), "Hi", temperature=0.5, max_tokens=5)
    assert resp.text == "hi"
    assert resp.parsed is None


@pytest.mark.anyio
async def test_stream_still_gives_partial_objects_for_a_response_format() -> None:
    async with lb.Client(http_client=_server(*RECIPE)) as client:
        async with client.stream((FAKE, "m"), "A recipe", response_format=Recipe) as events:
            kinds = [ev.type async for ev in events]
    assert "partial_object" in kinds


@pytest.mark.anyio
async def test_the_runtime_checks_stay() -> None:
    client = lb.Client(http_client=_server(*RECIPE))
    with pytest.raises(UsageError, match="temperature='hot'"):
        await client.complete((FAKE, "m"), "Hi", temperature="hot")  # type: ignore[call-overload]
    with pytest.raises(UsageError, match="did you mean 'max_tokens'"):
        client.stream((FAKE, "m"), "Hi", max_token=5)  # type: ignore[call-arg]
    with pytest.raises(UsageError, match="restart"):
        await client.count_tokens((FAKE, "m"), "Hi", restart=True)  # type: ignore[call-arg]
    await client.aclose()


@pytest.mark.anyio
async def test_run_passes_the_format_and_rescue_setting_on() -> None:
    async with lb.Client(http_client=_server(*RECIPE)) as client:
        loop = client.run(
            (FAKE, "m"), "A recipe", tools=[], response_format=Recipe, rescue_tool_calls=False
        )
        _ = [event async for event in loop]
    assert loop.stop_reason == "final"
    assert loop.response is not None
    assert loop.response.parsed == Recipe(title="Pasta", minutes=12)


def test_the_sync_client_returns_the_typed_value() -> None:
    with lb.SyncClient(http_client=_server(*RECIPE)) as client:
        resp = client.complete((FAKE, "m"), "A recipe", response_format=Recipe)
        loop = client.run((FAKE, "m"), "A recipe", tools=[], response_format=Recipe)
        _ = list(loop)
    assert resp.parsed.minutes == 12
    assert loop.response is not None
    assert loop.response.parsed.title == "Pasta"


# -- the user script runs as written ----------------------------------------------------------


@pytest.mark.anyio
async def test_the_user_script_runs_as_written() -> None:
    register_provider("typed-fake", lambda config: FakeProvider(config), replace=True)
    providers = {"typed-fake": {"api_key": "k"}}
    async with lb.Client(http_client=_server(*RECIPE), providers=providers) as client:
        seen = await user_script.typed_async(client, "typed-fake:m")
    assert seen[:2] == ["Pasta", "12"]
    assert "stop" in seen  # the finish event, narrowed by its type
    assert seen[-2:] == ["Pasta", "-1"]  # run's typed answer; the fake cannot count tokens
    with lb.SyncClient(http_client=_server(*RECIPE), providers=providers) as sync:
        seen = user_script.typed_sync(sync, "typed-fake:m")
    assert seen == ["Pasta", RECIPE[0]["text"], "Pasta"]  # parsed, the streamed text, run's
    assert user_script.typed_registry(lb.ToolRegistry()) == 3

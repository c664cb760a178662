"""One attempt loop, one fold (issue 42, items 2 and 4), on an httpx ``MockTransport``.

* Every request llmbridge sends is sent from ``stream.transport.run_attempts``: a stream, a
  background stream that breaks and resumes, ``Client.resume`` and a plain JSON request
  (``list_models``); and it is the only code that calls the send.
* ``complete()`` and a ``run()`` turn fold each event once (the stream's record), where they
  folded most events twice (the record inside the byte reader, past its first 4,096 events,
  and the caller's own ``Accumulator``).
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

import llmbridge as lb
import llmbridge.stream.transport as transport
from llmbridge.response import Accumulator
from tests.fakes import chat_sse, mock_client, sse_body

pytestmark = pytest.mark.anyio

PACKAGE = Path(lb.__file__).resolve().parent
MESSAGES = [lb.ChatMessage.user("hi")]
DELTAS = 10_000


class Background:
    """A Responses server in background mode: the POST's body breaks after the response was
    created (no terminal event); a resume (GET ``starting_after``) serves the rest."""

    def __init__(self) -> None:
        created = {"type": "response.created", "sequence_number": 0, "response": {"id": "r1"}}
        done = {"type": "response.completed", "sequence_number": 1, "response": {}}
        self.events = [created, done]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [{"id": "gpt-5"}]})
        if request.method == "GET":
            after = int(request.url.params.get("starting_after", "-1"))
            body = sse_body(*self.events[after + 1 :])
        else:
            body = sse_body(*self.events[:1])
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


async def test_every_request_is_sent_from_the_one_attempt_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    senders: list[str] = []
    send = transport.open_response

    def recording(*args: Any, **kwargs: Any) -> Any:
        callers = {
            sys._getframe(n).f_code.co_name for n in (1, 2, 3)
        }  # the loop, its _open_attempt
        senders.append("run_attempts" if "run_attempts" in callers else repr(callers))
        return send(*args, **kwargs)

    monkeypatch.setattr(transport, "open_response", recording)
    client = lb.Client(
        http_client=mock_client(Background()),
        providers={"openai-responses": {"api_key": "sk-test"}},
        retry=lb.RetryPolicy(max_attempts=3, initial_delay=0, max_delay=0, jitter=0),
    )
    model = "openai-responses:gpt-5"
    with pytest.raises(lb.StreamTruncatedError):  # a plain stream: its break is raised
        await client.complete(model, MESSAGES)
    background = await client.complete(model, MESSAGES, background=True)  # breaks, resumes
    assert background.finish_reason == "stop"
    resumed = [e.type async for e in client.resume(model, "r1", after=0)]
    assert resumed == ["stream_start", "finish"]  # the resume decoder starts the stream
    models = await client.list_models("openai-responses")
    assert [m.id for m in models] == ["gpt-5"]
    # the stream: 1 request; the background stream: 2 (it resumed); resume: 1; the models: 1
    assert senders == ["run_attempts"] * 5, senders


@functools.cache
def _calls() -> list[tuple[str, str, frozenset[str]]]:
    """Every call in llmbridge: (``module:function`` it is in, the name called, the names it
    unpacks as keywords)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        stack: list[tuple[ast.AST, str]] = [(ast.parse(path.read_text(encoding="utf-8")), "")]
        while stack:
            node, where = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                where = node.name
            elif isinstance(node, ast.Call) and where:
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                unpacked = frozenset(
                    k.value.id for k in node.keywords if isinstance(k.value, ast.Name)
                )
                found.append((f"{module}:{where}", called, unpacked))
            stack.extend((child, where) for child in ast.iter_child_nodes(node))
    return found


def _calls_of(name: str, *, unpacking: str | None = None) -> list[str]:
    """``module:function`` of every call of ``name`` (a function or a method) in llmbridge
    (``unpacking``: only calls that unpack that name as keywords)."""
    return sorted(
        {
            where
            for where, called, unpacked in _calls()
            if called == name and (unpacking is None or unpacking in unpacked)
        }
    )


def test_one_function_owns_the_attempt_loop() -> None:
    # The only send (``http.send(..., **SEND_OPTIONS)``) is the attempt's, called by the loop.
    sends = _calls_of("send", unpacking="SEND_OPTIONS")
    assert sends == ["stream/opening.py:open_response"], sends
    assert _calls_of("open_response") == ["stream/transport.py:_open_attempt"]
    assert _calls_of("_open_attempt") == ["stream/transport.py:run_attempts"]
    # The retry decisions (``RetryPolicy.delay``, Retry-After) are the loop's and its resume
    # strategy's: no second loop anywhere.
    delays = [w for w in _calls_of("delay") if not w.startswith("stream/retry.py")]
    assert delays == ["stream/failed_attempt.py:_delay", "stream/resume.py:after_break"], delays
    assert _calls_of("run_attempts") == [
        "client/pipeline.py:open_events",
        "client/pipeline.py:open_resumed",
        "stream/fetch.py:_first_answer",
        "stream/files.py:download_lines",
        "stream/transport.py:stream_events",
    ]


def _long_stream(request: httpx.Request) -> httpx.Response:
    body = chat_sse(*({"content": "x"} for _ in range(DELTAS)), model="gpt-4.1-mini")
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    folds = [0]
    add = Accumulator.add

    def counted(self: Accumulator, event: lb.StreamEvent) -> None:
        folds[0] += 1
        add(self, event)

    monkeypatch.setattr(Accumulator, "add", counted)
    return folds


def _client() -> lb.Client:
    return lb.Client(http_client=mock_client(_long_stream), providers={"openai": {"api_key": "k"}})


async def test_complete_folds_each_event_once(monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client()
    events = [e async for e in client.stream("openai:gpt-4.1-mini", MESSAGES)]
    assert len(events) > DELTAS
    folds = _counting(monkeypatch)
    response = await client.complete("openai:gpt-4.1-mini", MESSAGES)
    assert response.text == "x" * DELTAS
    assert folds[0] == len(events), f"{folds[0]} folds of {len(events)} events"


async def test_a_run_turn_folds_each_event_once(monkeypatch: pytest.MonkeyPatch) -> None:
    def add(a: int, b: int) -> int:
        return a + b

    client = _client()
    events = [e async for e in client.stream("openai:gpt-4.1-mini", MESSAGES, tools=[add])]
    folds = _counting(monkeypatch)
    loop = client.run("openai:gpt-4.1-mini", MESSAGES, tools=[add])
    turn = [e async for e in loop]
    assert loop.stop_reason == "final" and loop.response is not None
    assert loop.response.text == "x" * DELTAS
    assert len(turn) == len(events)
    assert folds[0] == len(events), f"{folds[0]} folds of {len(events)} events"


async def test_the_stream_start_is_stamped_once_in_the_loop() -> None:
    """The prepared call's warnings come first, then the decoder's; the chain's word (a
    ``StartNote``) first of all, with the provider; request id and rate limit from the head."""
    from llmbridge.providers.prepared import Prepared
    from llmbridge.stream.call import CallConfig
    from llmbridge.stream.start_stamp import StartNote
    from tests.fakes import FakeDecoder, FakeProvider, sse_body

    def handler(request: httpx.Request) -> httpx.Response:
        body = sse_body({"text": "hi"}, {"finish": "stop"})
        headers = {"content-type": "text/event-stream", "x-request-id": "req_9"}
        return httpx.Response(200, headers=headers, content=body)

    provider = FakeProvider()
    sent = provider.build_request(lb.ChatRequest(model="m", messages=MESSAGES))
    prepared = Prepared(http=sent, new_decoder=FakeDecoder, warnings=("top_k dropped",))
    note = StartNote(provider="fake", warnings=("fallback: a failed",))
    config = CallConfig(http=mock_client(handler))
    events = [e async for e in transport.run_attempts(prepared, provider=provider, config=config)]
    start = events[0]
    assert isinstance(start, lb.StreamStart)  # made: the fake decoder sends none
    assert start.warnings == ["top_k dropped"] and start.request_id == "req_9"
    assert [e.type for e in events].count("stream_start") == 1
    noted = [
        e
        async for e in transport.run_attempts(prepared, provider=provider, config=config, note=note)
    ]
    assert isinstance(noted[0], lb.StreamStart)
    assert noted[0].warnings == ["fallback: a failed", "top_k dropped"]
    assert noted[0].provider == "fake"

"""An interactive ``llmbridge chat`` (issue 44, item 8): ``/`` commands are never sent to the
model, Ctrl-C stops the answer and not the chat, and the chat takes a fallback chain and
provider options from flags or a file."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from llmbridge.cli import main
from llmbridge.cli.chat import ChatArgs
from llmbridge.cli.chat_commands import Command, command_of, stoppable
from llmbridge.cli.chat_session import provider_options
from tests.fakes import chat_sse
from tests.loopback import ThreadedServer

_AsyncClient = httpx.AsyncClient
REPO = Path(__file__).resolve().parents[1]


def _text(text: str) -> httpx.Response:
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=chat_sse({"content": text})
    )


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[httpx.Request]]:
    """``seen(answer)``: every request the CLI makes is answered by ``answer(request)``."""

    def install(answer: Callable[[httpx.Request], httpx.Response]) -> list[httpx.Request]:
        requests: list[httpx.Request] = []

        def handler(request: httpx.Request) -> httpx.Response:
            requests.append(request)
            return answer(request)

        class FakeClient(_AsyncClient):
            def __init__(self, **kwargs: object) -> None:
                super().__init__(transport=httpx.MockTransport(handler))

        monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        return requests

    return install


def _body(request: httpx.Request) -> dict[str, Any]:
    return json.loads(request.content)  # type: ignore[no-any-return]


def test_commands_are_never_sent_to_the_model(
    seen: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = seen(lambda r: _text("Noted."))
    typed = (
        "/help\n/bogus\nI am Ann.\n/model openai:gpt-4o\n//etc/hosts?\n/clear\nWho?\n/exit\nlost\n"
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    assert main(["chat", "openai:gpt-4.1-mini", "-i", "--system", "Be brief."]) == 0
    err = capsys.readouterr().err
    assert "/exit, /quit" in err and "unknown command /bogus: /help lists them" in err
    assert "[now chatting with openai:gpt-4o]" in err and "[conversation cleared]" in err
    bodies = [_body(r) for r in requests]
    assert [b["model"] for b in bodies] == ["gpt-4.1-mini", "gpt-4o", "gpt-4o"]
    said = [[m["content"] for m in b["messages"] if m["role"] == "user"] for b in bodies]
    assert said == [["I am Ann."], ["I am Ann.", "/etc/hosts?"], ["Who?"]]  # "lost": after /exit
    assert bodies[2]["messages"][0] == {"role": "system", "content": "Be brief."}


def test_a_one_shot_prompt_is_sent_as_it_is(seen: Any, capsys: Any) -> None:
    requests = seen(lambda r: _text("It is a path."))
    assert main(["chat", "openai:gpt-4.1-mini", "/etc/hosts: what is it?"]) == 0
    assert _body(requests[0])["messages"][-1]["content"] == "/etc/hosts: what is it?"


def test_a_fallback_chain_and_provider_options_from_flags_and_a_file(
    seen: Any, tmp_path: Path, capsys: Any
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if _body(request)["model"] == "gpt-down":
            return httpx.Response(
                503, headers={"retry-after": "0"}, json={"error": {"message": "down"}}
            )
        return _text("From the second model.")

    requests = seen(answer)
    file = tmp_path / "providers.json"
    file.write_text(json.dumps({"openai": {"headers": {"x-team": "search"}}}))
    argv = ["chat", "openai:gpt-down", "hi", "--fallback", "openai:gpt-4.1-mini"]
    argv += ["--providers", str(file), "--option", "base_url=http://proxy.test/v1"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("From the second model.")
    assert {str(r.url) for r in requests} == {"http://proxy.test/v1/chat/completions"}
    assert all(r.headers["x-team"] == "search" for r in requests)
    assert _body(requests[-1])["model"] == "gpt-4.1-mini"


def test_option_values_are_json_when_they_parse(tmp_path: Path) -> None:
    args = ChatArgs(model="openai:m", prompt="hi", base_url="http://b/v1")
    args.provider_options = ["timeout_s=5", "anthropic.api_version=2023-06-01", 'x={"a": 1}']
    assert provider_options(args, "openai") == {
        "openai": {"timeout_s": 5, "x": {"a": 1}, "base_url": "http://b/v1"},
        "anthropic": {"api_version": "2023-06-01"},
    }
    args.provider_options = ["no-equals-sign"]
    with pytest.raises(Exception, match="--option takes KEY=VALUE"):
        provider_options(args, "openai")


def test_lines_and_commands() -> None:
    assert command_of("hello") == "hello"
    assert command_of("//x") == "/x"
    assert command_of("/Model  openai:gpt-4o ") == Command("model", "openai:gpt-4o")


def _requests(conn: socket.socket) -> Any:
    """The JSON bodies of the HTTP/1.1 requests on a blocking socket, until EOF."""
    data = b""
    while piece := conn.recv(65536):
        data += piece
        while b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            while len(rest) < length:
                rest += conn.recv(65536)
            data = rest[length:]
            yield json.loads(rest[:length])


SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def _chunked(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


@pytest.mark.usefixtures("ctrl_c")  # a KeyboardInterrupt, however the run was started
def test_ctrl_c_stops_the_answer_and_the_chat_goes_on() -> None:
    """A real SIGINT while a real answer streams: ``[stopped]``, the next turn is read and sent
    with what was said of the stopped answer in its history, then ``/exit``: exit 0."""
    first_piece = threading.Event()
    bodies: list[dict[str, Any]] = []

    def handler(conn: socket.socket) -> None:
        for body in _requests(conn):
            bodies.append(body)
            if len(bodies) == 1:  # a story that stops after its first words
                piece = chat_sse({"content": "Once upon"}).split(b"\n\n")[0] + b"\n\n"
                conn.sendall(SSE_HEAD + _chunked(piece))
                first_piece.set()
                conn.recv(1)  # silence, until the client goes away
                return
            conn.sendall(SSE_HEAD + _chunked(chat_sse({"content": "The end."})) + _chunked(b""))

    server = ThreadedServer(handler)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": "sk-test"}
    argv = ["chat", "openai-compatible:m", "-i", "--base-url", f"{server.url}/v1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "llmbridge", *argv],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"Tell me a story.\n")
        proc.stdin.flush()
        assert first_piece.wait(60)
        assert proc.stdout.read(len("Once upon")) == b"Once upon"  # it is being written
        proc.send_signal(signal.SIGINT)
        proc.stdin.write(b"And then?\n/exit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        server.close()
    assert proc.returncode == 0, err
    assert b"[stopped]" in err and b"interrupted" not in err and b"Traceback" not in err
    assert b"The end." in out
    assert [(m["role"], m["content"]) for m in bodies[1]["messages"]] == [
        ("user", "Tell me a story."),
        ("assistant", "Once upon"),
        ("user", "And then?"),
    ]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_an_answer_leaves_ctrl_c_as_the_process_had_it(backend: str) -> None:
    """A chat run where SIGINT is ignored (``nohup``, ``cmd &``) keeps it ignored after an
    answer: asyncio's signal receiver put Python's default handler back instead."""

    async def turn() -> str:
        return "answer"

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert anyio.run(stoppable, turn, backend=backend) == ("answer", False)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)

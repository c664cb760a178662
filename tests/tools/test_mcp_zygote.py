"""The warm starter of the MCP test servers (``mcp_zygote.py``): a server it forks behaves, to
the client that started ``python SERVER.py``, as the process it started — its pipes, argv,
environment and directory, its exit status and the signal that killed it, the signals sent to
it — and a server whose starter is gone does not outlive it, even when the starter goes away in
the middle of the hand-over. Plain processes (``mcp_zygote_probe.py``), Linux only."""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.tools import mcp_zygote
from tests.tools.mcp_helpers import alive

PROBE = str(Path(__file__).with_name("mcp_zygote_probe.py"))
DEADLINE = 30.0  # generous: only reached when something is wrong

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or os.environ.get("LLMBRIDGE_TESTS_COLD_MCP") == "1"
    or importlib.util.find_spec("mcp") is None,
    reason="warm starts: Linux only, with the mcp SDK, unless LLMBRIDGE_TESTS_COLD_MCP=1",
)


def _zygote_address() -> str:
    return mcp_zygote._NAME.format(os.getpid())


@pytest.fixture(scope="module", autouse=True)
def zygote() -> None:
    """This process's zygote (``tests/conftest.py`` starts it), once it listens."""
    deadline = time.monotonic() + DEADLINE
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as probe:
            try:
                probe.connect(_zygote_address())
                return  # the zygote reads the closed connection as a start given up
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("this pytest process has no MCP zygote listening")
        time.sleep(0.05)


def _read_line(fd: int, buffer: bytearray) -> bytes:
    """The next line from ``fd`` (b"" at EOF), within the deadline."""
    deadline = time.monotonic() + DEADLINE
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                pytest.fail(f"no line within {DEADLINE} s (read so far: {bytes(buffer)!r})")
            chunk = os.read(fd, 65536)
            if not chunk:
                return b""
            buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


def _start(
    started: list[subprocess.Popen[bytes]], *args: str, **kwargs: Any
) -> tuple[subprocess.Popen[bytes], dict[str, Any], bytearray]:
    proc = subprocess.Popen(
        [sys.executable, PROBE, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
        **kwargs,
    )
    started.append(proc)
    assert proc.stdout is not None
    buffer = bytearray()
    hello = json.loads(_read_line(proc.stdout.fileno(), buffer))
    return proc, hello, buffer


def _say(proc: subprocess.Popen[bytes], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + DEADLINE
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_warm_server_has_the_started_process_pipes_argv_environment_and_directory(
    started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    env = {**os.environ, "PROBE": "from the client"}
    proc, hello, buffer = _start(started, "one", "two words", env=env, cwd=tmp_path)
    assert hello["warm"] is True
    assert hello["pid"] != proc.pid  # the zygote's child, behind the process the client started
    assert hello["argv"] == ["one", "two words"]
    assert hello["cwd"] == str(tmp_path)
    assert hello["probe"] == "from the client"
    assert proc.stdout is not None
    _say(proc, "hello")
    assert _read_line(proc.stdout.fileno(), buffer) == b"HELLO"
    _say(proc, "exit 3")
    assert proc.wait(DEADLINE) == 3
    assert _read_line(proc.stdout.fileno(), buffer) == b""  # EOF: nobody holds the pipe now
    assert _gone(hello["pid"])


def test_eof_on_stdin_ends_the_server_and_the_started_process_with_status_0(
    started: list[subprocess.Popen[bytes]],
) -> None:
    proc, hello, _ = _start(started)
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(DEADLINE) == 0
    assert _gone(hello["pid"])


def test_a_server_killed_by_a_signal_kills_the_started_process_with_it(
    started: list[subprocess.Popen[bytes]],
) -> None:
    proc, hello, _ = _start(started)
    _say(proc, "kill")
    assert proc.wait(DEADLINE) == -signal.SIGTERM
    assert _gone(hello["pid"])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_sent_to_the_started_process_reaches_the_server(
    started: list[subprocess.Popen[bytes]], signum: signal.Signals
) -> None:
    proc, hello, buffer = _start(started)
    assert proc.stdout is not None
    _say(proc, "hang")
    assert _read_line(proc.stdout.fileno(), buffer) == b"hanging"
    proc.send_signal(signum)
    # SIGINT is a KeyboardInterrupt in the server, which then ends as a cold Python does
    assert proc.wait(DEADLINE) == -signum
    assert _gone(hello["pid"])


def test_a_started_process_killed_outright_takes_its_server_with_it(
    started: list[subprocess.Popen[bytes]],
) -> None:
    proc, hello, _ = _start(started)
    assert alive(hello["pid"])
    proc.kill()
    proc.wait(DEADLINE)
    assert _gone(hello["pid"])


def test_a_starter_gone_in_the_middle_of_the_hand_over_leaves_no_server_and_a_live_zygote(
    started: list[subprocess.Popen[bytes]],
) -> None:
    """The zygote forks the server and then finds the starter's connection closed: it kills the
    server (which holds the pipes the starter handed over) and goes on serving starts."""
    stdin_r, stdin_w = os.pipe()  # kept open here: a server left running would wait on it
    stdout_r, stdout_w = os.pipe()
    start = {
        "argv": [PROBE],
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "path": str(Path(PROBE).parent),
    }
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
        sock.connect(_zygote_address())
        socket.send_fds(sock, [json.dumps(start).encode()], [stdin_r, stdout_w, stdout_w])
    for fd in (stdin_r, stdout_w):
        os.close(fd)
    try:
        buffer = bytearray()
        line = _read_line(stdout_r, buffer)  # the server's hello, if it got that far; then EOF
        if line:
            assert _read_line(stdout_r, buffer) == b""
    finally:
        os.close(stdout_r)
        os.close(stdin_w)
    proc, hello, _ = _start(started)
    assert hello["warm"] is True
    _say(proc, "exit 0")
    assert proc.wait(DEADLINE) == 0

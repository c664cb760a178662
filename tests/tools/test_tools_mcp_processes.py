"""``mcp_processes``: what a stopped stdio server left is found by its tag or by the tree
remembered before it stopped, and nothing else is killed (a pid now used by another process,
a process without the tag). Plain processes, no MCP server (Linux: ``/proc``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from llmbridge.mcp.connection.processes import TAG_VARIABLE, ServerProcesses
from tests.tools.mcp_helpers import alive

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc (Linux)")

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def _gone(proc: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return True
        time.sleep(0.02)
    return False


def test_a_process_carrying_the_tag_is_killed_wherever_it_is(
    started: list[subprocess.Popen[bytes]],
) -> None:
    processes = ServerProcesses()
    tagged = subprocess.Popen(
        SLEEP, env=processes.environment(dict(os.environ)), start_new_session=True, **QUIET
    )
    other = ServerProcesses()  # another server's process, and one with no tag at all
    foreign = subprocess.Popen(SLEEP, env=other.environment(dict(os.environ)), **QUIET)
    plain = subprocess.Popen(SLEEP, **QUIET)
    started += [tagged, foreign, plain]
    time.sleep(0.2)  # exec'd: /proc/<pid>/environ is the new program's
    processes.kill_leftovers([])
    assert _gone(tagged)
    assert foreign.poll() is None and plain.poll() is None
    assert processes.environment(None) == {TAG_VARIABLE: processes.tag}


def test_a_remembered_descendant_is_killed_unless_its_pid_was_reused(
    started: list[subprocess.Popen[bytes]],
) -> None:
    processes = ServerProcesses()
    parent = subprocess.Popen(SLEEP, env={}, **QUIET)  # no tag: only the tree finds it
    started.append(parent)
    time.sleep(0.2)
    processes.remember([os.getpid()])
    assert parent.pid in processes._remembered
    survivor = subprocess.Popen(SLEEP, env={}, **QUIET)  # started after: not remembered
    started.append(survivor)
    processes._remembered = {parent.pid: processes._remembered[parent.pid]}
    processes.kill_leftovers([])
    assert _gone(parent) and survivor.poll() is None

    reused = ServerProcesses()  # the same pid, another start time: another process now
    reused._remembered = {survivor.pid: "0"}
    reused.kill_leftovers([])
    assert survivor.poll() is None and alive(survivor.pid)
    os.kill(survivor.pid, signal.SIGKILL)

"""Helpers for the MCP tests: the test servers (the app server over HTTP), and counting child
processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

APP_SERVER = str(Path(__file__).with_name("mcp_app_server.py"))
INTERACT_SERVER = str(Path(__file__).with_name("mcp_interact_server.py"))
"""The server that talks back (elicitation, roots, progress, logs, sampling)."""
INTERACT_STDIO = {"command": sys.executable, "args": [INTERACT_SERVER, "stdio"]}
FEATURE_LOOPS = pytest.mark.loops("asyncio", "trio")
"""For an MCP test of a feature (elicitation, roots, progress, logs, deferral, catalogs, mixing
registries) rather than of the IO path: asyncio and trio. The same servers' IO path (start,
read, concurrent sessions, a crash, a hang, leaving the block) runs on every loop, uvloop too,
in the round-trip, lifecycle, failure and hostile tests; one more run of each feature test on
uvloop started its servers again (a Python importing ``mcp``) and tested nothing new."""
HANG = 120.0
"""Seconds a block that starts MCP server processes may take before it counts as hung. On a
loaded machine one server start (a Python importing ``mcp``) alone takes several seconds, and
a test starting four took 27 s of a 30 s guard: a guard fails a hang, never a busy machine."""


def first_text(output: Any) -> str:
    """The text of a tool result's first part."""
    return str(output.content[0].text)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":  # a zombie is already dead, only not reaped yet
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def descendants(
    root: int | None = None, *, exclude: set[int] | frozenset[int] = frozenset()
) -> set[int]:
    """Live processes below ``root`` (default: this one), leaving out ``exclude``'s subtrees."""
    tree = _children()
    found: set[int] = set()
    todo = [root or os.getpid()]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in exclude and child not in found:
                found.add(child)
                todo.append(child)
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(script: str, *args: str, port: int | None = None) -> Iterator[tuple[str, int]]:
    """``python script *args http PORT`` until the block ends: yields ``(url, pid)`` once the
    port answers. A server that exits fails at once; one that neither answers nor exits fails
    after ``HANG`` (a busy machine took more than 20 s to start one: a guard fails a hang)."""
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, script, *args, "http", str(port)])
    try:
        deadline = time.monotonic() + HANG
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            status = proc.poll()
            ended = "hung" if status is None else f"exited with status {status}"
            raise RuntimeError(f"the MCP server {script} did not start ({ended})")
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def http_app_server(name: str, port: int | None = None) -> Iterator[tuple[str, int]]:
    """The app server over streamable HTTP: yields ``(url, pid)``."""
    with http_server(APP_SERVER, name, port=port) as started:
        yield started


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, dead but not yet reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"

"""The processes of a stdio MCP server, and stopping all of them (``connect_stdio``'s job).

Rules:

* The SDK starts each server in a new session (its own process group) and kills that group
  when the server outlives its grace period. A process that started its own session
  (``setsid``, a daemonizing double fork) leaves the group and would outlive the server: an
  orphan the docs promise not to leave. So, besides the group:
* every server gets a tag in its environment (``LLMBRIDGE_MCP_SERVER_ID=<random>``), which its
  descendants inherit however they detach; when the server stops, every process of ours whose
  initial environment holds the tag is killed (Linux: ``/proc/<pid>/environ``), whether it is
  still below the server or was handed to ``init`` long ago (the server crashed, a daemon's
  parent exited);
* just before the server is asked to stop, its descendants are walked (``/proc``, parent ids)
  and remembered with their start times: those that cleared their environment are killed too,
  once the server is gone, unless their pid now belongs to another process.
* Killing is ``SIGKILL`` (the server itself had its grace period); no process is killed that
  is not ours (another user's, or this one). Without ``/proc`` (macOS, BSD) only the process
  group is killed, as the SDK does.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["TAG_VARIABLE", "ServerProcesses"]

TAG_VARIABLE = "LLMBRIDGE_MCP_SERVER_ID"
"""The environment variable that marks a server's processes (its value: that server's tag)."""

_PROC = Path("/proc")


def _stat(pid: int) -> tuple[str, int, str] | None:
    """``(state, parent pid, start time)`` of ``pid``, or ``None`` if it is gone."""
    try:
        text = (_PROC / str(pid) / "stat").read_text()
        fields = text[text.rindex(")") + 2 :].split()
        return fields[0], int(fields[1]), fields[19]  # fields 3, 4 and 22 of proc(5)
    except (OSError, ValueError, IndexError):  # gone, or not the proc(5) we know
        return None


def _pids() -> Iterator[int]:
    try:
        names = os.listdir(_PROC)
    except OSError:
        return
    for name in names:
        if name.isdigit():
            yield int(name)


def _descendants(roots: Iterable[int]) -> dict[int, str]:
    """Every live process below ``roots``: pid → start time (a zombie is already dead)."""
    children: dict[int, list[tuple[int, str]]] = {}
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z":
            children.setdefault(stat[1], []).append((pid, stat[2]))
    found: dict[int, str] = {}
    todo = list(roots)
    while todo:
        for child, started in children.get(todo.pop(), ()):
            if child not in found:
                found[child] = started
                todo.append(child)
    return found


def _kill(pid: int) -> None:
    if pid != os.getpid():
        with contextlib.suppress(OSError):  # gone already, or not ours to kill
            os.kill(pid, signal.SIGKILL)


class ServerProcesses:
    """One stdio server start: the tag for its environment, and stopping what it left."""

    def __init__(self) -> None:
        self.tag = secrets.token_hex(12)
        self._marker = f"{TAG_VARIABLE}={self.tag}".encode()
        self._remembered: dict[int, str] = {}

    def environment(self, env: dict[str, str] | None) -> dict[str, str]:
        """``env`` (merged over the SDK's default environment by the SDK) plus the tag."""
        return {**(env or {}), TAG_VARIABLE: self.tag}

    def remember(self, roots: Iterable[int]) -> None:
        """Note the live descendants of ``roots`` (the server's pid): called just before the
        server is stopped, while they are still below it."""
        self._remembered.update(_descendants(roots))

    def kill_leftovers(self, groups: Iterable[int]) -> None:
        """Kill what the stopped server left: its process groups, the processes carrying its
        tag, and the remembered descendants still alive (the same process: same start time)."""
        killpg = getattr(os, "killpg", None)  # POSIX; on Windows the SDK's job object does this
        for group in groups:
            if killpg is not None and group:
                with contextlib.suppress(OSError):  # nothing left: the group is gone
                    killpg(group, signal.SIGKILL)
        for pid in self._tagged():
            _kill(pid)
        for pid, started in self._remembered.items():
            stat = _stat(pid)
            if stat is not None and stat[0] != "Z" and stat[2] == started:
                _kill(pid)
        self._remembered.clear()

    def _tagged(self) -> Iterator[int]:
        marker = self._marker
        for pid in _pids():
            try:
                environ = (_PROC / str(pid) / "environ").read_bytes()
            except OSError:  # gone, or another user's
                continue
            if marker in environ and marker in environ.split(b"\0"):
                yield pid

"""Warm starts for the MCP test servers: one process per pytest process that has imported the
``mcp`` SDK once and forks a server for each start (``import mcp_zygote`` first thing in a
server script; ``tests/conftest.py`` starts the zygote when MCP tests are collected).

A test server start is a Python importing ``mcp`` (~0.9 s of CPU, mostly pydantic building the
protocol's models), and a suite run starts some 150 of them: a third of the suite's CPU. Here
the process the client starts stays the one it sees, so what the tests check is unchanged:

* the client starts ``python SERVER.py ARGS`` as before (the SDK's pipes, its own session and
  process group, the environment the SDK gives it). Importing this module first, the script
  finds the zygote of the process that started it (an abstract unix socket named after its
  parent's pid), hands it its stdin, stdout and stderr, its argv, environment and working
  directory, and closes its own copies: the server reads and writes the client's pipes, the
  client sees EOF when the server exits;
* the zygote forks; the child takes over the pipes, argv, environment, directory, and runs the
  script as ``__main__`` (where this import is then a no-op);
* the starter waits: it exits with the server's status (a signal that killed the server kills
  it too), passes the signals a client sends (``terminate``, ``SIGINT``) on to the server, and
  when the starter dies (``SIGKILL``, its process group killed) the zygote kills the server.
  So the processes a test counts below itself are the starters, one per live server, as before.
* with no zygote (a script run by hand, by the CLI, by another process, a zygote still
  importing), the script runs as it always did.

What differs: the server's own pid is not the one the client started (a test that kills the
pid a server reports kills the server, and its starter exits as it died), and the processes a
server starts are not below the starter. The client finds those by the tag in their
environment, as it would anyway; ``mcp_daemon_server.py``, whose tests are about processes that
shed that tag and must be found below the server, always starts cold.

Linux only (abstract sockets, ``pidfd_open``); elsewhere the scripts start cold.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import sys

_NAME = "\0llmbridge-tests-mcp-zygote-{}"
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)
_WARM = ("anyio", "mcp.types", "mcp.server.lowlevel", "mcp.server.mcpserver", "mcp.server.stdio")
_WARM_HTTP = ("uvicorn", "mcp.server.streamable_http_manager", "mcp.server.auth.provider")
_IN_ZYGOTE = False
_HERE = os.path.dirname(os.path.abspath(__file__))


def _hand_over() -> None:
    """Run this server in the zygote of the process that started it, if there is one."""
    if _IN_ZYGOTE or not sys.platform.startswith("linux"):
        return
    import json

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.connect(_NAME.format(os.getppid()))
    except OSError:  # no zygote, or not yet ready: a cold start
        sock.close()
        return
    start = {"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd(), "path": sys.path[0]}
    sys.stdout.flush()
    sys.stderr.flush()
    socket.send_fds(sock, [json.dumps(start).encode()], [0, 1, 2])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server has the pipes now: EOF reaches the client when it exits
        os.dup2(null, fd)
    os.close(null)
    reply = sock.recv(16)
    if len(reply) != 4:  # the zygote failed to fork: let the client see a failed start
        os._exit(70)
    (child,) = struct.unpack("=i", reply)

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(child, signum)
        except OSError:
            pass

    for signum in _FORWARDED:
        signal.signal(signum, forward)
    reply = sock.recv(16)
    if len(reply) != 4:  # the zygote died: so did the server
        os._exit(70)
    (status,) = struct.unpack("=i", reply)
    if os.WIFSIGNALED(status):
        _die_of(os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 70)


def start(owner: int) -> None:
    """Start the zygote for the pytest process ``owner`` (returns at once; the zygote answers
    once it has imported the SDK, is nobody's child, and exits when ``owner`` does)."""
    import subprocess

    subprocess.run(
        [sys.executable, __file__, "serve", str(owner)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        check=True,
        start_new_session=True,
    )


def _serve(owner: int) -> None:
    import importlib
    import json
    import runpy
    import selectors
    import traceback

    if os.fork():  # the starter returns at once; the zygote is left to init, below no test
        os._exit(0)
    try:
        watch = os.pidfd_open(owner)
    except OSError:
        return
    for module in _WARM + _WARM_HTTP:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    global _IN_ZYGOTE
    _IN_ZYGOTE = True
    sys.modules["mcp_zygote"] = sys.modules[__name__]  # the scripts' import finds this one
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        listener.bind(_NAME.format(owner))
    except OSError:  # another zygote for that owner
        return
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    servers: dict[int, socket.socket] = {}  # server pid -> its starter's connection
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "start")
    selector.register(watch, selectors.EVENT_READ, "owner")
    selector.register(wake_r, selectors.EVENT_READ, "child")

    def run(start: dict[str, object], fds: list[int]) -> None:  # in the forked child
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, *_FORWARDED):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        selector.close()
        listener.close()
        for conn in servers.values():
            conn.close()
        os.close(wake_r)
        os.close(wake_w)
        os.close(watch)
        for fd, target in zip(fds, (0, 1, 2), strict=True):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(start["env"])  # type: ignore[arg-type]
        os.chdir(str(start["cwd"]))
        sys.argv = list(start["argv"])  # type: ignore[call-overload]
        sys.path[0] = str(start["path"])
        code, interrupted = 0, False
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as exit:  # as the interpreter reads sys.exit's argument
            if isinstance(exit.code, int):
                code = exit.code
            elif exit.code is not None:
                print(exit.code, file=sys.stderr)
                code = 1
        except BaseException as error:
            traceback.print_exc()
            code, interrupted = 1, isinstance(error, KeyboardInterrupt)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        if interrupted:  # as the interpreter ends on a KeyboardInterrupt: killed by SIGINT
            _die_of(signal.SIGINT)
        os._exit(code)

    while True:
        for key, _ in selector.select():
            if key.data == "owner":  # the pytest process is gone: so are its servers
                for pid in servers:
                    _kill(pid)
                return
            if key.data == "start":
                conn, _ = listener.accept()
                message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                if len(fds) != 3:
                    for fd in fds:
                        os.close(fd)
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    conn.close()
                    run(json.loads(message), fds)
                for fd in fds:
                    os.close(fd)
                servers[pid] = conn
                try:
                    conn.send(struct.pack("=i", pid))
                except OSError:  # the starter died while the zygote forked: so does the server
                    _kill(pid)
                    continue
                selector.register(conn, selectors.EVENT_READ, pid)
            elif key.data == "child":
                os.read(wake_r, 4096)
                while servers:
                    try:
                        pid, status = os.waitpid(-1, os.WNOHANG)
                    except ChildProcessError:
                        break
                    if pid == 0:
                        break
                    conn = servers.pop(pid, None)
                    if conn is not None:
                        if conn.fileno() in selector.get_map():
                            selector.unregister(conn)
                        try:
                            conn.send(struct.pack("=i", status))
                        except OSError:
                            pass
                        conn.close()
            else:  # a starter's connection: it died (it never sends more)
                selector.unregister(key.fileobj)
                _kill(key.data)


def _die_of(signum: int) -> None:
    """End this process killed by ``signum``, as its exit status will say."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    _serve(int(sys.argv[2]))
elif __name__ == "mcp_zygote" and os.path.dirname(os.path.abspath(sys.argv[0])) == _HERE:
    _hand_over()  # imported by a test server script run as ``python SERVER.py``

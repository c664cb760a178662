"""``llmbridge run SCRIPT --replay DIR``: run a Python script offline against recordings.

Rules: every ``lb.Client`` the script makes without its own ``http_client`` serves the given
fixtures in order instead of the network, with placeholder keys (``llmbridge.testing.offline``);
the script runs as ``python SCRIPT ARGS`` would run it (``__main__``, its folder first on
``sys.path``, ``sys.argv``). A request that does not match the next recording is the replay's
``ReplayMismatch`` (its diff printed line by line) and an llmbridge error is one line, as the
CLI says errors; a ``--replay`` folder holding an ``mcp.json`` serves the script's MCP servers
too, none started (``llmbridge.testing.mcp_cassette``); the script's own exceptions keep their traceback (they are the user's code).
The exit code is the script's.
"""

from __future__ import annotations

import contextlib
import runpy
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from ..errors import LLMBridgeError
from ..testing.mcp_cassette import MCP_FILE, replay_mcp
from ..testing.offline import offline
from ..testing.replay import ReplayMismatch
from .chat import replay_fixtures
from .report import report

__all__ = ["run_script"]


def run_script(script: Path, replay: Sequence[Path], argv: Sequence[str]) -> int:
    """Run ``script`` with ``argv`` against the fixtures in ``replay`` (see the module rules)."""
    fixtures = replay_fixtures(replay)
    saved_argv, saved_path = list(sys.argv), list(sys.path)
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        with offline(fixtures), contextlib.ExitStack() as stack:
            traffic = [
                stack.enter_context(replay_mcp(p)) for p in replay if (p / MCP_FILE).is_file()
            ]
            runpy.run_path(str(script), run_name="__main__")
            for each in traffic:
                each.assert_matched()
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except (LLMBridgeError, ReplayMismatch) as exc:  # what the replay says: one error, a diff
        report(exc)
        return 1
    except Exception:  # the script's own bug: its traceback, as python would print it
        traceback.print_exc()
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0

"""A stand-in server for the zygote's own tests: ``python mcp_zygote_probe.py``.

Prints one JSON line (its pid, whether it runs in a zygote, its argv, cwd and ``PROBE`` from
its environment), then echoes stdin lines back upper-cased until EOF or ``exit N`` (exits N),
``kill`` (kills itself with SIGTERM) or ``hang`` (waits to be killed).
"""

from __future__ import annotations

try:  # first, as the MCP test servers do
    import mcp_zygote
except ImportError:
    mcp_zygote = None  # type: ignore[assignment]

import json
import os
import signal
import sys
import time

print(
    json.dumps(
        {
            "pid": os.getpid(),
            "warm": bool(mcp_zygote and mcp_zygote._IN_ZYGOTE),
            "argv": sys.argv[1:],
            "cwd": os.getcwd(),
            "probe": os.environ.get("PROBE"),
        }
    ),
    flush=True,
)
for line in sys.stdin:
    command = line.strip()
    if command.startswith("exit "):
        sys.exit(int(command.split()[1]))
    if command == "kill":
        os.kill(os.getpid(), signal.SIGTERM)
    if command == "hang":
        print("hanging", flush=True)
        while True:
            time.sleep(60)
    print(command.upper(), flush=True)

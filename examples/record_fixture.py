"""Record a fixture: one real call saved as a replayable, diffable folder (keys redacted).

    python examples/record_fixture.py OUT_DIR            # live when ANTHROPIC_API_KEY is set
    python examples/record_fixture.py OUT_DIR --replay   # "record" a replayed call: no key

The folder holds ``input.json``, ``request.json``, ``response.json``, ``response.sse`` and
``events.json``; replay it with ``llmbridge replay OUT_DIR`` or ``replay_client(OUT_DIR)`` in
your tests. In replay mode the recorder wraps a ``ReplayTransport`` instead of the network,
so the same code path runs offline.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio
import orjson

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture, record_fixture

MODEL = "anthropic:claude-sonnet-4-5"
MESSAGES = [
    lb.ChatMessage.system("You are a poet. Answer with the poem only."),
    lb.ChatMessage.user("Write a haiku about rivers."),
]
RECORDED = Path(__file__).resolve().parent / "fixtures" / "anthropic" / "haiku"


async def record(out: Path, *, replay: bool) -> lb.testing.Fixture:
    fixture = await record_fixture(
        out,
        MODEL,
        MESSAGES,
        max_tokens=200,
        transport=ReplayTransport(RECORDED) if replay else None,  # None: the real network
        client_options={"providers": {"anthropic": {"api_key": "replay"}}} if replay else None,
    )
    headers = orjson.loads((out / "request.json").read_bytes())["headers"]
    print(f"recorded {len(fixture.events or [])} events into {out}")
    for name, value in headers.items():
        print(f"  request header {name}: {value}")  # the key is saved as <redacted>
    replayed = load_fixture(out)
    print(f"  replayable: {replayed.model}, {len(replayed.body)} body bytes")
    return fixture


async def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(args[0]) if args else Path(tempfile.mkdtemp()) / "haiku"
    replay = "--replay" in sys.argv or not os.environ.get("ANTHROPIC_API_KEY")
    if replay:
        print("(recording a replayed call)", file=sys.stderr)
    await record(out, replay=replay)


if __name__ == "__main__":
    anyio.run(main)

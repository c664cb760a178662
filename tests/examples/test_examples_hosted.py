"""``examples/hosted_tools.py`` replays without a key: the MCP approval round trip and web
search citations, through the real client."""

from __future__ import annotations

import os
import subprocess
import sys

from plugin_install import REPO


def test_hosted_tools_example_approves_then_answers_and_cites() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "hosted_tools.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "replaying" in proc.stderr
    assert proc.stdout.splitlines() == [
        "docs wants to run search_docs({'query': 'rate limits'})",
        "approved",
        "The free tier allows 60 requests per minute.",
        "Lisbon had about 567,000 residents in 2024 (ine.pt).",
        "  [Resident population 2024](https://www.ine.pt/lisbon-2024): "
        "'Lisbon had about 567,000 residents in 2024'",
    ]

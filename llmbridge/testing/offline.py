"""Run code offline against recordings: every HTTP client llmbridge makes for itself serves the
given fixtures instead of the network, and the key variables hold placeholders.

Rules:

* ``offline(fixtures)`` is a context manager (``llmbridge run SCRIPT --replay DIR`` is it around
  a script, and the docs test around each documentation block): while it is open, an
  ``lb.Client()`` given no ``http_client`` replays ``fixtures`` in order, each request checked
  against the recorded one (``ReplayTransport``, not strict: the caller asks
  ``assert_all_played()`` when it wants every recording used). A client the app makes itself
  (``http_client=``) is left alone.
* Each key variable in ``KEY_VARS`` that is not set holds ``PLACEHOLDER_KEY`` (recordings hold
  no key; the request check ignores redacted headers), and so do AWS's access key variables when
  no AWS credentials are configured; the environment is restored on exit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from .fixtures import Fixture
from .replay import ReplayTransport

__all__ = ["KEY_VARS", "PLACEHOLDER_KEY", "offline"]

PLACEHOLDER_KEY = "offline-placeholder-key"
KEY_VARS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "CO_API_KEY",
    "OLLAMA_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "ANTHROPIC_AWS_API_KEY",
    "AZURE_OPENAI_API_KEY",
)
"""The key variables given a placeholder when unset (the built-in providers' own)."""
_AWS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
_AWS_CONFIGURED = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE")


@contextmanager
def offline(fixtures: Sequence[Fixture | str | Path]) -> Iterator[ReplayTransport]:
    """Replay ``fixtures`` for every client llmbridge makes for itself (see the module rules);
    yields the transport serving them."""
    from ..stream import clients

    transport = ReplayTransport(list(fixtures), strict=False)

    def replaying(**_: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport)

    names = [v for v in KEY_VARS if not os.environ.get(v)]
    if not any(os.environ.get(v) for v in _AWS_CONFIGURED):
        names += _AWS
    saved = {name: os.environ.get(name) for name in names}
    made = (clients.httpx_client, clients.aiohttp_client)
    clients.httpx_client = clients.aiohttp_client = replaying
    os.environ.update(dict.fromkeys(names, PLACEHOLDER_KEY))
    try:
        yield transport
    finally:
        clients.httpx_client, clients.aiohttp_client = made
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

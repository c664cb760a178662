"""llmbridge-echo: an example llmbridge provider plug-in for the toy *Echo API*.

The entry point ``echo = "llmbridge_echo:create"`` in the ``llmbridge.providers`` group makes
``echo:<model>`` model strings work in any app that has this package installed.

The Echo API (what this plug-in speaks):

* ``POST {base_url}/v1/echo`` with ``{"model", "messages": [...], "tools": [...],
  "max_tokens"?, "stream": true}``; each message is ``{"role", "text"}`` plus ``"calls"`` on
  assistant turns and ``"call_id"`` on tool results. ``Authorization: Bearer <key>`` when a key
  is set (``ECHO_API_KEY``; a local echo server needs none).
* The answer is Server-Sent Events, each with an ``event:`` name and a JSON ``data:`` line:
  ``message_start`` ``{"id", "model"}``, ``text`` ``{"text"}``, ``call_start``
  ``{"call", "id", "name"}``, ``call_args`` ``{"call", "args"}``, ``call_end`` ``{"call"}``,
  ``ping`` ``{}``, ``error`` ``{"error": {"type", "message"}}`` and the terminal ``done``
  ``{"reason", "usage": {"input", "output"}}``.
* Errors before the stream are JSON bodies ``{"error": {"type", "message"}}`` with an HTTP
  status. The error types are those of ``errors.ERRORS``.
"""

from __future__ import annotations

from llmbridge.providers import ProviderConfig

from .decode import EchoDecoder
from .provider import EchoProvider
from .request import build_body

__all__ = ["EchoDecoder", "EchoProvider", "build_body", "create"]


def create(config: ProviderConfig) -> EchoProvider:
    """The provider factory the entry point names: ``ProviderConfig -> Provider``."""
    return EchoProvider(config)

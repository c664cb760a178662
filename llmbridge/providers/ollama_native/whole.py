"""A whole Ollama ``/api/chat`` answer (``stream: false``) → normalized events, through the
stream decoder (``providers.whole.ReplayDecoder``).

Rules: a whole answer is what the stream's last line is, its ``message`` holding everything
(``content``, ``thinking``, ``tool_calls``) beside ``done: true``, ``done_reason`` and the
token counts and durations; so the body is one NDJSON line for ``decode.OllamaDecoder``, which
gives the same events, finish reason and usage. An ``error`` object raises its typed error.
``whole_body`` sets ``stream: false``.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...frames import Line
from ..whole import ReplayDecoder

__all__ = ["OllamaWholeDecoder", "whole_body"]


def whole_body(body: dict[str, Any]) -> dict[str, Any]:
    """The streamed request ``body`` as a whole one (``stream: false``)."""
    return {**body, "stream": False}


class OllamaWholeDecoder(ReplayDecoder):
    """A whole ``/api/chat`` answer, decoded by the stream decoder (module rules)."""

    def replay(self, body: dict[str, Any]) -> list[Any]:
        return [Line(orjson.dumps(body))]

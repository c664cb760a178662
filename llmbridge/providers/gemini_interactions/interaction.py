"""A whole ``Interaction`` object (``GET /interactions/{id}``, a background poll, a create
without ``stream``) → the same normalized events as its stream (pure).

Follows ``google.genai`` Interactions ``Interaction`` (``steps``; the older objects' ``outputs``,
a list of contents: ``text``, ``thought``, ``function_call``, ``image``). Rules:

* the object is read as the stream it stands for: ``interaction.created``, a ``step.start`` +
  ``step.stop`` per step, then ``interaction.completed``, fed to ``InteractionsDecoder`` (one
  decoder: the same text, reasoning, calls, items, usage and finish as the stream);
* an older ``outputs`` content becomes its step (``text`` → a ``model_output`` of it,
  ``thought`` → a ``thought`` step, ``function_call`` as it is, others kept whole);
* an interaction still running (``in_progress``, ``queued``, ``requires_continuation``) has no
  ``Finish`` yet: ``interaction_events`` returns what it has, ``running`` says so;
* ``WholeInteractionDecoder`` is the decoder of such a body (``feed`` once, ``close``).
"""

from __future__ import annotations

from typing import Any

import orjson

from ...errors import MalformedStreamError
from ...events import StreamEvent
from ..base import BaseDecoder
from .decode import InteractionsDecoder

__all__ = ["RUNNING", "WholeInteractionDecoder", "interaction_events", "running"]

RUNNING = frozenset({"in_progress", "queued", "requires_continuation", "idle"})
"""Statuses of an interaction that has not finished."""


def running(interaction: dict[str, Any]) -> bool:
    return interaction.get("status") in RUNNING


def _step_of(content: Any) -> Any:
    if not isinstance(content, dict):
        return content
    kind = content.get("type")
    if kind == "text":
        return {"type": "model_output", "content": [content]}
    if kind == "thought":
        step = {k: v for k, v in content.items() if k in ("type", "signature", "summary")}
        return step
    return content


def interaction_events(interaction: Any, *, provider: str) -> list[StreamEvent]:
    """The events of ``interaction`` (a ``Finish`` last once it has finished)."""
    if not isinstance(interaction, dict):
        raise MalformedStreamError(
            f"an Interaction object was expected, not {type(interaction).__name__}",
            provider=provider,
        )
    steps = interaction.get("steps")
    if not isinstance(steps, list):
        outputs = interaction.get("outputs")
        steps = [_step_of(c) for c in outputs] if isinstance(outputs, list) else []
    decoder = InteractionsDecoder(provider=provider)
    head = {k: v for k, v in interaction.items() if k in ("id", "model", "status")}
    out = decoder.feed("", _dumps({"event_type": "interaction.created", "interaction": head}))
    for index, step in enumerate(steps):
        out += decoder.feed("", _dumps({"event_type": "step.start", "index": index, "step": step}))
        out += decoder.feed("", _dumps({"event_type": "step.stop", "index": index}))
    if running(interaction):
        return out
    end = {"event_type": "interaction.completed", "interaction": interaction}
    out += decoder.feed("", _dumps(end))
    return out + decoder.close()


def _dumps(obj: dict[str, Any]) -> str:
    return orjson.dumps(obj).decode()


class WholeInteractionDecoder(BaseDecoder):
    """Decoder of one body holding a whole ``Interaction`` (``feed`` it, then ``close``)."""

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self._chunks: list[str] = []

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        self._chunks.append(data)
        return []

    def close(self) -> list[StreamEvent]:
        body = "".join(self._chunks)
        try:
            interaction = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise MalformedStreamError(
                f"the Interaction body is not JSON: {body[:120]!r}", provider=self.provider
            ) from exc
        return interaction_events(interaction, provider=self.provider)

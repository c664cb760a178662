"""What an app may mix into the event stream it hands to ``llmbridge.ui``: its own data parts
(``Data``) and AG-UI state snapshots (``State``).

Rules: both are plain slotted dataclasses with a ``type`` like the stream events; they pass
through the walker unchanged, in stream order. ``Data`` becomes an AI SDK ``data-<name>`` chunk
(or an AG-UI ``CUSTOM`` event); ``State`` an AG-UI ``STATE_SNAPSHOT`` (and an AI SDK
``data-state`` part, replaced in place).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

__all__ = ["Data", "State"]


@dataclass(slots=True)
class Data:
    """An app's own data for the page, at this point of the stream."""

    type: ClassVar[Literal["ui_data"]] = "ui_data"
    name: str
    """The part's name: the AI SDK chunk is ``data-<name>``, the AG-UI ``CUSTOM`` event's name."""
    value: Any
    """Any JSON value."""
    id: str | None = None
    """A later ``Data`` with the same name and id replaces this one on the page (AI SDK)."""
    transient: bool = False
    """Shown to the page's ``onData`` only, never kept in the message (AI SDK)."""


@dataclass(slots=True)
class State:
    """The app's whole state for an AG-UI front end (a ``STATE_SNAPSHOT``)."""

    type: ClassVar[Literal["ui_state"]] = "ui_state"
    value: Any

"""Embedding and rerank calls in cassettes: recorded by the pytest plug-in, replayed offline.

Rules:

* Each HTTP request of a ``client.embed`` / ``embed_many`` / ``rerank`` call is one fixture
  folder, as a chat request is; its ``input.json`` holds ``operation`` (``embeddings`` or
  ``rerank``) and the model, no ``ChatRequest`` fields, and it has no ``events.json``. A
  folder without ``operation`` is a chat request (every fixture recorded before).
* ``embed_recording.Recorded`` (the base of the plug-in's recording client) notes, per embedding
  or rerank call, the recordings it made (the recorder's count before and after it: the calls
  of one test are recorded one after another, as chat's are); ``steps`` pairs each recording
  with its call, chat calls taking the others in order.
* The pieces of a split call are sent concurrently, in an order the loop chooses; ``pick``
  lets a replay serve the unplayed embedding or rerank fixture whose request is the one sent
  (method, URL, body), so a replay does not depend on that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from ..providers.base import Provider
from ..request import ChatRequest
from .redact import redact_url

if TYPE_CHECKING:
    from .fixtures import Fixture
    from .record import Recording

__all__ = ["OPERATIONS", "ModelCall", "pick", "placeholder", "steps"]

OPERATIONS = ("embeddings", "rerank")
"""The ``operation`` of a fixture that is not a chat request."""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One embedding or rerank call: the model and the recordings ``first`` to ``end``."""

    operation: str
    model: str
    first: int
    end: int


def placeholder(model: str) -> ChatRequest:
    """The ``Fixture.request`` of an embedding or rerank fixture (it has no chat request)."""
    return ChatRequest(model=model, messages=[])


def steps(
    recordings: Sequence[Recording], calls: Sequence[tuple[Provider, Any, Any]]
) -> list[tuple[Recording, Provider, ChatRequest, Any, str]]:
    """Each recording with its call: ``(recording, provider, request, events, operation)``, in
    recording order (chat calls take the recordings no embedding call made, in order)."""
    claimed: dict[int, tuple[Provider, ChatRequest, Any, str]] = {}
    chats = []
    for provider, request, events in calls:
        if isinstance(request, ModelCall):
            for i in range(request.first, request.end):
                claimed[i] = (provider, placeholder(request.model), None, request.operation)
        else:
            chats.append((provider, request, events, "chat"))
    pending = iter(chats)
    out = []
    for i, recording in enumerate(recordings):
        call = claimed.get(i) or next(pending, None)
        if call is None:
            break
        out.append((recording, *call))
    return out


def pick(fixtures: list[Fixture], played: int, request: httpx.Request) -> None:
    """Move the unplayed embedding or rerank fixture (from ``played`` on, up to the next chat
    one) whose request is ``request`` to ``played`` (a no-op for a chat fixture)."""
    if fixtures[played].operation not in OPERATIONS:
        return
    sent = (request.method, redact_url(str(request.url)), _body(request.content))
    for j in range(played, len(fixtures)):
        fixture = fixtures[j]
        if fixture.operation not in OPERATIONS:
            return
        recorded = fixture.http_request
        if (recorded.get("method"), recorded.get("url"), recorded.get("body")) == sent:
            fixtures.insert(played, fixtures.pop(j))
            return


def _body(content: bytes) -> Any:
    try:
        return orjson.loads(content) if content else None
    except orjson.JSONDecodeError:
        return content.decode("utf-8", "replace")

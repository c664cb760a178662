"""The batch job model: ``BatchRequest`` in, ``BatchJob`` (a handle that survives a restart) and
``BatchResult`` out.

Rules:

* ``BatchRequest(id, messages, **options)`` takes the options ``complete()`` takes; ``id`` is the
  app's own and comes back on its ``BatchResult``.
* A ``BatchJob`` is one handle over one or more provider jobs (``parts``: a submission larger
  than the provider's limits is split); its ``id`` is the parts' ids joined by ``","`` so that
  ``client.batch_job(model, job.id)`` reopens it, and ``to_json()`` / ``BatchJob.from_json()``
  keep everything the provider said. Statuses are normalized (``BatchStatus``); the provider's
  own word is ``raw_status``. No secret is ever held here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeAlias

import orjson
from typing_extensions import TypeVar

from ..errors import LLMBridgeError, UsageError

if TYPE_CHECKING:
    from ..messages import ChatResponse
    from ..request import ResponseFormat

__all__ = [
    "TERMINAL",
    "BatchCounts",
    "BatchJob",
    "BatchPart",
    "BatchRequest",
    "BatchResult",
    "BatchStatus",
    "FormatLookup",
    "ResponseT",
    "ResultStatus",
]

ResponseT = TypeVar("ResponseT", default="ChatResponse[object]")
"""What a job's results hold: a ``ChatResponse`` (``client.batch``; its ``parsed`` is
``object``: ``None``, or the value of the request's own ``response_format``), an
``EmbeddingResponse`` (``client.batch_embed``)."""

BatchStatus: TypeAlias = Literal[
    "queued", "running", "completed", "failed", "cancelling", "cancelled", "expired"
]
ResultStatus: TypeAlias = Literal["succeeded", "errored", "cancelled", "expired"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled", "expired"})
"""The statuses a job never leaves."""


class BatchRequest:
    """One request of a batch: the app's ``id``, the ``messages`` and ``complete()``'s options
    (``tools``, ``response_format``, ``max_tokens``, ``temperature``, ``extra``...)."""

    __slots__ = ("id", "messages", "options")

    def __init__(self, id: str, messages: Any, **options: Any) -> None:
        if not isinstance(id, str) or not id:
            raise UsageError(f"a BatchRequest's id is a non-empty string, not {id!r}")
        self.id = id
        self.messages = messages
        self.options: dict[str, Any] = options

    def __repr__(self) -> str:
        return f"BatchRequest(id={self.id!r}, options={sorted(self.options)!r})"


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """How many requests a job holds, and how far it got."""

    total: int = 0
    succeeded: int = 0
    failed: int = 0
    """Errored, expired and cancelled items."""
    pending: int = 0

    def __add__(self, other: BatchCounts) -> BatchCounts:
        return BatchCounts(
            self.total + other.total,
            self.succeeded + other.succeeded,
            self.failed + other.failed,
            self.pending + other.pending,
        )


@dataclass(frozen=True, slots=True)
class BatchPart:
    """One provider job behind a ``BatchJob``: its id, status and the provider's own fields
    (``data``: file ids, result URLs, the endpoint, what a reopened job needs)."""

    id: str
    status: BatchStatus
    raw_status: str
    counts: BatchCounts = BatchCounts()
    data: Mapping[str, Any] = field(default_factory=dict)


class FormatLookup(Protocol):
    """Each request's ``response_format`` (``batch.parsing.Formats``)."""

    def of(self, request_id: str) -> ResponseFormat | None: ...


@dataclass(frozen=True, slots=True)
class BatchJob(Generic[ResponseT]):
    """A handle on a batch job (see the module rules); ``BatchJob[EmbeddingResponse]`` for
    ``client.batch_embed``'s."""

    provider: str
    model: str
    parts: tuple[BatchPart, ...]
    formats: FormatLookup | None = field(default=None, compare=False, repr=False)
    """Each request's ``response_format`` (``batch.parsing``), in the process that submitted
    the job only: never in ``to_json()``."""

    @property
    def id(self) -> str:
        return ",".join(part.id for part in self.parts)

    @property
    def status(self) -> BatchStatus:
        return merged_status([part.status for part in self.parts])

    @property
    def raw_status(self) -> str:
        return ",".join(part.raw_status for part in self.parts)

    @property
    def counts(self) -> BatchCounts:
        total = BatchCounts()
        for part in self.parts:
            total = total + part.counts
        return total

    @property
    def done(self) -> bool:
        """Whether the job ended (its status is terminal)."""
        return self.status in TERMINAL

    def with_parts(self, parts: Iterable[BatchPart]) -> BatchJob[ResponseT]:
        return replace(self, parts=tuple(parts))

    def __repr__(self) -> str:
        return (
            f"BatchJob(id={self.id!r}, provider={self.provider!r}, model={self.model!r}, "
            f"status={self.status!r}, counts={self.counts!r})"
        )

    def to_json(self) -> str:
        """The job as JSON text, for ``BatchJob.from_json`` in another process."""
        parts = [
            {
                "id": p.id,
                "status": p.status,
                "raw_status": p.raw_status,
                "counts": [p.counts.total, p.counts.succeeded, p.counts.failed, p.counts.pending],
                "data": dict(p.data),
            }
            for p in self.parts
        ]
        body = {"llmbridge_batch": 1, "provider": self.provider, "model": self.model}
        return orjson.dumps({**body, "parts": parts}).decode()

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> BatchJob:
        """The job ``to_json()`` wrote (``UsageError`` for anything else)."""
        try:
            data = text if isinstance(text, Mapping) else orjson.loads(text)
            parts = tuple(
                BatchPart(
                    id=str(p["id"]),
                    status=p["status"],
                    raw_status=str(p["raw_status"]),
                    counts=BatchCounts(*(int(n) for n in p["counts"])),
                    data=dict(p["data"]),
                )
                for p in data["parts"]
            )
            job: BatchJob = BatchJob(str(data["provider"]), str(data["model"]), parts)
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"not a BatchJob's to_json() text ({exc!r})") from None
        if not parts:
            raise UsageError("not a BatchJob's to_json() text (no parts)")
        return job


def merged_status(statuses: list[BatchStatus]) -> BatchStatus:
    """One status for several provider jobs: still moving while any part is; when all ended,
    ``completed`` if any part completed, else the worst of the rest."""
    if len(set(statuses)) == 1:
        return statuses[0]
    if any(s not in TERMINAL for s in statuses):
        if "cancelling" in statuses:
            return "cancelling"
        return (
            "queued"
            if all(s == "queued" for s in statuses if s not in TERMINAL)
            and not any(s in TERMINAL for s in statuses)
            else "running"
        )
    order: tuple[BatchStatus, ...] = ("completed", "failed", "expired", "cancelled")
    for status in order:
        if status in statuses:
            return status
    return statuses[0]  # pragma: no cover


@dataclass(frozen=True, slots=True)
class BatchResult(Generic[ResponseT]):
    """One request's outcome: ``id`` (the app's), ``status``, the ``response`` (when it
    succeeded) or the ``error`` (a typed ``LLMBridgeError``; for cancelled and expired items
    too)."""

    id: str
    status: ResultStatus
    response: ResponseT | None = None
    error: LLMBridgeError | None = None

    @property
    def cost(self) -> Decimal | None:
        """What this request cost in USD at the provider's batch price (genai-prices' batch
        variant, the ``prices`` extra; its standard price where it has no batch one)."""
        from ..cost import cost_of

        response: Any = self.response
        if response is None:
            return None
        return cost_of(response.usage, model=response.model, provider=response.provider, batch=True)

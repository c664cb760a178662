"""The fixture format: one folder per recorded interaction.

``fixtures/<provider>/<scenario>/`` holds:

* ``input.json``    — the llmbridge-level request: ``model`` (``provider:model``), the other
  ``ChatRequest`` fields, and optional ``provider_config`` (no secrets); for a request of an
  embedding or rerank call, ``operation`` instead of the chat fields (``embed_cassettes``);
* ``request.json``  — the HTTP request as sent: ``method``, ``url``, ``headers`` (secrets
  redacted), ``body`` (JSON);
* ``response.json`` — ``status``, ``headers`` (identifying ones redacted) and ``chunks``: the
  byte lengths of the body chunks as they arrived; ``error`` when the attempt failed (the httpx
  error class that ended it, e.g. ``ReadTimeout``, after the body recorded; ``status`` 0 when it
  came before any answer): a replay raises it there;
* ``response.sse``  — the raw body bytes exactly as received; an AWS event stream (binary) is
  ``response.eventstream`` instead, beside ``response.frames.jsonl``, its messages decoded one
  per line (``{"event", "data"}``: the event type, or ``exception:<type>`` / ``error:<code>``,
  and the payload) for people to read and diff (never read back);
* ``events.json``   — the golden normalized events, as the decoder yields them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from ..errors import LLMBridgeError
from ..events import StreamEvent, StreamStart, event_from_dict, event_to_dict
from ..request import ChatRequest
from ..secrets import scrub_json
from .redact import Scrub, scrub_bytes

__all__ = ["BODY_FILES", "Fixture", "body_file", "dump_json", "load_fixture"]

BODY_FILES = ("response.sse", "response.eventstream")
"""Where a fixture's raw body is: SSE and other text bodies, or an AWS event stream."""
EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"


def body_file(path: Path) -> Path:
    """The raw body file of the fixture folder ``path`` (``response.sse`` when neither exists)."""
    for name in BODY_FILES:
        if (path / name).exists():
            return path / name
    return path / BODY_FILES[0]


def _frames_companion(body: bytes) -> bytes:
    """``response.frames.jsonl``: each frame of an event-stream body as one JSON line; a body
    the framing refuses ends with ``{"error": ...}`` (the frames before it are kept)."""
    from ..stream.aws_eventstream import iter_eventstream

    lines = []
    try:
        for message in iter_eventstream(body):
            event, data = message.pair()
            try:
                value: Any = orjson.loads(data)
            except orjson.JSONDecodeError:
                value = data
            lines.append(orjson.dumps({"event": event, "data": value}, option=orjson.OPT_SORT_KEYS))
    except LLMBridgeError as exc:
        lines.append(orjson.dumps({"error": f"{type(exc).__name__}: {exc.message}"}))
    return b"\n".join(lines) + b"\n"


def dump_json(path: Path, data: Any) -> None:
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


@dataclass
class Fixture:
    path: Path
    model: str
    """``provider:model``"""
    request: ChatRequest
    provider_config: dict[str, Any]
    http_request: dict[str, Any]
    status: int
    headers: dict[str, str]
    body: bytes
    chunks: list[int] = field(default_factory=list)
    events: list[StreamEvent] | None = None
    error: str | None = None
    """The transport error that ended the recorded attempt (an httpx class name), if one did."""
    operation: str = "chat"
    """``chat``, or ``embeddings`` / ``rerank`` (``input.json``'s ``operation``)."""

    @property
    def provider(self) -> str:
        return self.model.partition(":")[0]

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"

    def body_chunks(self) -> list[bytes]:
        """The body split at its recorded chunk boundaries (one chunk if none were recorded)."""
        if not self.chunks:
            return [self.body]
        out, pos = [], 0
        for size in self.chunks:
            out.append(self.body[pos : pos + size])
            pos += size
        if pos < len(self.body):
            out.append(self.body[pos:])
        return out

    def save(self, *, scrub: Scrub | None = None) -> None:
        """Write the fixture; ``scrub`` is applied to every string written (secrets, PII)."""
        if scrub is not None:
            self._scrub(scrub)
        self.path.mkdir(parents=True, exist_ok=True)
        inp = self.request.model_dump(mode="json", exclude_none=True, by_alias=True)
        inp = {
            k: v
            for k, v in inp.items()
            if v not in ([], {}) and (k, v) not in (("tool_mode", "auto"), ("format_mode", "auto"))
        }
        if self.operation != "chat":  # an embedding or rerank call's request: no chat fields
            inp = {"operation": self.operation}
        inp["model"] = self.model
        if self.provider_config:
            inp["provider_config"] = self.provider_config
        dump_json(self.path / "input.json", inp)
        dump_json(self.path / "request.json", self.http_request)
        meta: dict[str, Any] = {
            "status": self.status,
            "headers": self.headers,
            "chunks": self.chunks,
        }
        if self.error is not None:
            meta["error"] = self.error
        dump_json(self.path / "response.json", meta)
        binary = EVENTSTREAM_TYPE in self.headers.get("content-type", "")
        (self.path / BODY_FILES[binary]).write_bytes(self.body)
        if binary and self.status == 200:
            (self.path / "response.frames.jsonl").write_bytes(_frames_companion(self.body))
        if self.events is not None:
            self.save_events(self.events)

    def _scrub(self, scrub: Scrub) -> None:
        request = self.request.model_dump(mode="json", exclude_none=True, by_alias=True)
        self.request = ChatRequest.model_validate(scrub_json(request, scrub))
        self.provider_config = scrub_json(self.provider_config, scrub)
        self.http_request = scrub_json(self.http_request, scrub)
        self.headers = scrub_json(self.headers, scrub)
        body = scrub_bytes(self.body, scrub)
        if body != self.body:  # lengths changed: one chunk (replay splits anywhere anyway)
            self.body, self.chunks = body, [len(body)]
        if self.events is not None:
            self.events = [
                event_from_dict(scrub_json(event_to_dict(e), scrub)) for e in self.events
            ]

    def save_events(self, events: list[StreamEvent]) -> None:
        """Write the goldens: the events as the decoder yields them (the request id and rate
        limits the client adds to ``StreamStart`` come from ``response.json``'s headers)."""
        self.events = [_as_decoded(e) for e in events]
        dump_json(self.path / "events.json", [event_to_dict(e) for e in self.events])


def _as_decoded(event: StreamEvent) -> StreamEvent:
    if isinstance(event, StreamStart) and (event.request_id or event.rate_limit):
        return replace(event, request_id=None, rate_limit=None)
    return event


def load_fixture(path: str | Path) -> Fixture:
    path = Path(path)
    inp = orjson.loads((path / "input.json").read_bytes())
    model = inp.pop("model")
    provider_config = inp.pop("provider_config", {})
    operation = inp.pop("operation", "chat")
    if operation != "chat":
        inp.setdefault("messages", [])
    request = ChatRequest.model_validate({**inp, "model": model.partition(":")[2]})
    meta = orjson.loads((path / "response.json").read_bytes())
    events_path = path / "events.json"
    events = (
        [event_from_dict(e) for e in orjson.loads(events_path.read_bytes())]
        if events_path.exists()
        else None
    )
    return Fixture(
        path=path,
        model=model,
        request=request,
        provider_config=provider_config,
        http_request=orjson.loads((path / "request.json").read_bytes()),
        status=meta["status"],
        headers=meta.get("headers", {}),
        body=body_file(path).read_bytes(),
        chunks=meta.get("chunks", []),
        events=events,
        error=meta.get("error"),
        operation=operation,
    )

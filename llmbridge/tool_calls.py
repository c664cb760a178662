"""The tool calls of one response: the one life cycle every decoder and the prompt-tools parser share.

Sans-IO and provider-neutral: a decoder keeps only how its wire *addresses* a call (an
``index``, an id, an ``output_index``, a content block) and hands the call to the ledger for
everything else. Rules (DESIGN.md, invariants 1, 2 and 6):

* ``open`` gives a call its id and position. The wire's id is used when it is new in this
  response; a repeated wire id gets a suffix (``id_2``, ``id_3``, ...); a call with no id gets
  ``{id_prefix}{n}`` (``n`` counts this ledger's calls, skipping numbers already taken) and is
  flagged ``provider_data["generated_id"] = True``. ``index`` is the call's position among the
  response's tool calls, from 0 (``next_index``; a wrapping decoder may raise it past calls
  another ledger made).
* A call starts (``ToolCallStart``) as soon as it has a name; argument text that came before
  the name is held and sent as one chunk right after the start.
* ``add`` appends argument text: one ``ToolCallChunk`` per non-empty piece, in order.
* ``end`` ends a call exactly once (later ends of it add nothing). A call never named starts
  with the name ``""`` and is flagged. ``final`` arguments (a done event's whole text) that
  extend what streamed add the missing tail as one chunk; a ``final`` that contradicts it is
  ignored (chunks cannot be taken back). The joined chunks are ``raw_arguments``, parsed by
  ``parse_arguments`` unless the caller parsed them itself. Integers stay exact whatever their
  size: orjson reads one beyond 64 bits as a float (``123456789012345678901234`` →
  ``1.2345678901234569e+23``), so text holding a run of 19 or more digits is read again by the
  standard library (only such text: one regex search is all the common case pays). Gemini is
  the exception: its arguments arrive as a protobuf ``Struct``, whose numbers are doubles.
* Calls end only when the caller says so (block stop, item done, finish, end of stream),
  never because their text happens to parse; ``end_all`` ends the open ones in opening order.
* ``unique_id`` (``first_free``) is the one routine that makes a tool-call id unique among
  those taken: the ledger's suffixes and generated ids, and the ids
  ``llmbridge.providers.history`` rewrites for a provider that refuses the old ones. The
  ledger remembers where each search ended (per wire id, and for generated ids), so a wire
  that repeats one id 8,000 times costs 8,000 look-ups, not 32 million (issue 49).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container
from typing import Any

import orjson

from .events import StreamEvent, ToolCallChunk, ToolCallEnd, ToolCallStart

__all__ = [
    "GENERATED_ID",
    "ToolCall",
    "ToolCallLedger",
    "arguments_text",
    "first_free",
    "parse_arguments",
    "unique_id",
]

GENERATED_ID = "generated_id"
"""``ToolCallEnd.provider_data`` key set on calls whose id llmbridge made up."""

UNNAMED = "the provider never named this tool call"

_LONG_DIGITS = re.compile(r"\d{19}")
"""A run of digits that may be an integer beyond orjson's 64 bits (2**63 has 19 digits)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def unique_id(candidate: Callable[[int], str], taken: Container[str], *, start: int = 0) -> str:
    """The first of ``candidate(start)``, ``candidate(start + 1)``, ... that is not ``taken``."""
    return first_free(candidate, taken, start=start)[1]


def first_free(
    candidate: Callable[[int], str], taken: Container[str], *, start: int = 0
) -> tuple[int, str]:
    """``(n, candidate(n))`` for the first ``n >= start`` whose candidate is not ``taken``.

    A caller whose ``taken`` only grows can start its next search for the same candidates at
    ``n + 1``: every number before it stays taken, so each number is tried once in all.
    """
    n = start
    while (new := candidate(n)) in taken:
        n += 1
    return n, new


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """``(arguments, error)`` for the raw JSON text of a tool call's arguments.

    Empty or whitespace-only text means no arguments (``{}``). Anything else must be a JSON
    object; otherwise the arguments are ``{}`` and the error says why (``ToolCallEnd.error``,
    with the raw text kept, so nothing is lost).
    """
    if not raw.strip():
        return {}, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return {}, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"tool arguments must be a JSON object, got {type(value).__name__}"
    if _LONG_DIGITS.search(raw) is not None:  # maybe an integer orjson made a float: exact
        value = json.loads(raw, parse_constant=_no_constant)
    return value, None


def arguments_text(arguments: Any) -> str:
    """The JSON text of parsed arguments (for history): orjson, or the standard library when
    an integer is beyond orjson's 64 bits (exact arguments, as ``parse_arguments`` keeps them)."""
    try:
        return orjson.dumps(arguments).decode()
    except orjson.JSONEncodeError:
        return json.dumps(arguments, ensure_ascii=False, allow_nan=False)


class ToolCall:
    """One tool call of the response, as far as it has come."""

    __slots__ = ("chunks", "ended", "id", "index", "name", "provider_data", "started")

    def __init__(self, call_id: str, index: int, provider_data: dict[str, Any] | None) -> None:
        self.id = call_id
        self.index = index
        self.name: str | None = None
        self.started = False
        self.ended = False
        self.chunks: list[str] = []
        self.provider_data = provider_data

    @property
    def raw_arguments(self) -> str:
        return "".join(self.chunks)


class ToolCallLedger:
    """Ids, positions, chunks and the one end of each tool call (see module docstring)."""

    __slots__ = (
        "_generated_from",
        "_ids",
        "_open",
        "_suffix_from",
        "count",
        "id_prefix",
        "next_index",
    )

    def __init__(self, *, id_prefix: str = "call_") -> None:
        self.id_prefix = id_prefix
        """Generated ids are ``f"{id_prefix}{n}"``."""
        self.count = 0
        """Calls this ledger opened."""
        self.next_index = 0
        """``index`` of the next call."""
        self._ids: set[str] = set()
        self._open: dict[int, ToolCall] = {}  # by index, in opening order
        # Where the next search for a free id starts (``_ids`` only grows, so every number
        # before it is taken): per wire id its next suffix, and the next generated number
        # (with ``id_prefix``). Each number is tried once in all: linear in the calls.
        self._suffix_from: dict[str, int] = {}
        self._generated_from = (id_prefix, 0)

    def __contains__(self, call_id: object) -> bool:
        """Whether ``call_id`` is already the id of a call in this response."""
        return call_id in self._ids

    def open(
        self,
        call_id: str | None,
        name: str | None,
        out: list[StreamEvent],
        *,
        provider_data: dict[str, Any] | None = None,
    ) -> ToolCall:
        """A new call (started at once when ``name`` is given, even ``""``)."""
        if call_id:
            unique = self._suffixed(call_id)
        else:
            unique = self._generated()
            provider_data = {GENERATED_ID: True, **(provider_data or {})}
        self._ids.add(unique)
        call = ToolCall(unique, self.next_index, provider_data)
        self.count += 1
        self.next_index += 1
        self._open[call.index] = call
        if name is not None:
            call.name = name
            call.started = True
            out.append(ToolCallStart(unique, name, call.index))
        return call

    def _suffixed(self, wire: str) -> str:
        """``wire``, else ``wire_2``, ``wire_3``, ...: the first not taken."""
        start = self._suffix_from.get(wire, 1)
        n, unique = first_free(lambda n: f"{wire}_{n}" if n > 1 else wire, self._ids, start=start)
        self._suffix_from[wire] = n + 1
        return unique

    def _generated(self) -> str:
        """``{id_prefix}{n}`` for the first ``n`` from ``count`` not taken."""
        prefix, start = self._generated_from
        if prefix != self.id_prefix:  # a decoder may set the prefix once it knows it
            prefix, start = self.id_prefix, 0
        n, unique = first_free(lambda n: f"{prefix}{n}", self._ids, start=max(start, self.count))
        self._generated_from = (prefix, n + 1)
        return unique

    def name(self, call: ToolCall, name: str, out: list[StreamEvent]) -> None:
        """Name a call opened without one: it starts now, with any text held so far."""
        if call.started:
            return
        call.name = name
        call.started = True
        out.append(ToolCallStart(call.id, name, call.index))
        if call.chunks:
            out.append(ToolCallChunk(call.id, call.index, "".join(call.chunks)))

    def add(self, call: ToolCall, text: str, out: list[StreamEvent]) -> None:
        """Argument text for ``call`` (held until the call starts)."""
        if text and not call.ended:
            call.chunks.append(text)
            if call.started:
                out.append(ToolCallChunk(call.id, call.index, text))

    def end(
        self,
        call: ToolCall,
        out: list[StreamEvent],
        *,
        final: str | None = None,
        name: str | None = None,
        parsed: tuple[dict[str, Any], str | None] | None = None,
        error: str | None = None,
        provider_data: dict[str, Any] | None = None,
    ) -> None:
        """End ``call`` once: its ``ToolCallEnd`` (see module docstring for each argument).

        ``name`` names a call that has none yet; ``parsed`` is ``(arguments, error)`` when the
        caller parsed the raw text itself; ``error`` flags the call; ``provider_data`` is
        merged into the call's own.
        """
        if call.ended:
            return
        call.ended = True
        del self._open[call.index]
        if not call.started:
            self.name(call, name or "", out)
            if not name:
                error = error or UNNAMED
        elif not call.name and name:
            call.name = name
        raw = "".join(call.chunks)
        if final is not None and len(final) > len(raw) and final.startswith(raw):
            tail = final[len(raw) :]
            call.chunks.append(tail)
            out.append(ToolCallChunk(call.id, call.index, tail))
            raw = final
        arguments, parse_error = parse_arguments(raw) if parsed is None else parsed
        data = call.provider_data
        if provider_data:
            data = {**data, **provider_data} if data else provider_data
        out.append(
            ToolCallEnd(
                call.id, call.index, call.name or "", arguments, raw, error or parse_error, data
            )
        )

    def end_all(self, out: list[StreamEvent]) -> None:
        """End every open call, in the order they were opened."""
        for call in list(self._open.values()):
            self.end(call, out)

"""Streaming parser turning tool calls written in text deltas into tool-call events.

A sans-IO state machine in the spirit of h11: ``feed(text) -> events``, ``close() -> events``.
It never looks at how the text was chunked; the same text split anywhere gives the same events
once adjacent text deltas (and adjacent chunks of one call) are merged. What a call looks like
is the dialects' data (``dialects.py``): open markers, close markers, trailers, and the shapes
object / array of objects / name header before the arguments. The handlers of what follows a
body (POST, TRAIL) are in ``closing.py``.

States (one handler each, in a table)::

    TEXT --open marker--> PRE --'{'------------------> BODY --value closed--> POST --close--> TEXT
      |  a marker prefix     |--'[' (array dialects)--> PRE (items)   ',' / ']' (arrays) |
      |  at the chunk end    +--other (named dialects)--> HEAD --header end + name--> BODY |
      +--> OPEN (held) --rest of the marker--> PRE                 trailers <--- TRAIL <--+

Rules:

1. Plain text is found with ``str.find`` of the markers' first characters (``<``, and ``[`` when
   Mistral's ``[TOOL_CALLS]`` is looked for); text with none of them costs one scan per
   character. A start character is held back only while the text after it is still a prefix
   of an open marker, so ``a < b``, ``<div>`` or ``[link]`` pass as soon as one character rules
   the marker out. Open markers hold no start character after their first, so a failed prefix
   never hides another call start and is never re-scanned.
2. After the open marker come optional whitespace and an optional ```` ```json ```` fence, then
   ``{`` (a call object), ``[`` (an array of call objects, array dialects) or a name header
   (named dialects: read up to ``header_end``, at most ``max_header`` characters, the name is
   ``name_pattern``'s group 1). Anything else (or a header without a name) means it was not a
   call, e.g. ``<function_call>`` in a sentence: the held text is released as text, byte-exact.
   A released header is scanned again from its second character (bounded work), so a call
   that follows prose which only mentioned a marker is still found.
3. Text before, between and after calls passes through byte-exact. Whitespace and fences
   inside the markup belong to the call and are not text.
4. The body is scanned by ``CallBody`` (linear; strings, escapes and nesting tracked across
   chunks). ``tool_call_start`` is emitted as soon as the name is known, ``tool_call_chunk``
   with the arguments text written in each feed, ``tool_call_end`` when the call is closed.
   ``raw_arguments`` is the exact text of the ``arguments`` value (for a JSON-string value: its
   decoded content); the joined chunks always equal it.
5. A call is closed by a close marker, or, if the model leaves it out (or the dialect has
   none), by the first text after the closed JSON value that is not whitespace, a fence or a
   close-marker prefix (that text then streams as text), or by the end of the stream. In an
   array, ``,`` ends a call and starts the next, ``]`` ends the last. Trailers right after a
   close marker (whitespace allowed before them) are swallowed.
6. Policy for bad calls (never a crash, never silently lost): the call is still emitted and its
   ``ToolCallEnd`` has ``error`` set and ``provider_data={"raw_text": <the whole call text>}``:
   unknown tool name (``arguments`` still parsed), malformed JSON, no name, arguments that are
   not an object (``arguments={}``), a stream ending inside the call (``arguments={}``,
   ``raw_arguments`` = what was written). A marker prefix at the end of the stream is text.
7. Rescue mode (``rescue=True``): text is only turned into a call once the name is known and is
   one of ``tool_names``; until then the markup is held, and it is released as text if the name
   is undeclared, missing, or the stream ends first. ``dialects_used`` names the dialects of
   the calls emitted.
8. Ids are ``f"{id_prefix}{n}"`` (n counts this parser's calls); ``index`` comes from
   ``next_index`` (a wrapping decoder may raise it past native calls). Starts, chunks and the
   one end of each call are the ledger's (``llmbridge.tool_calls``), as in every decoder.
9. After ``close()`` the parser refuses input (``RuntimeError``: local misuse).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ..errors import UsageError
from ..events import StreamEvent, TextDelta
from ..tool_calls import ToolCall, ToolCallLedger
from .body import CallBody
from .closing import _BODY, _CLOSED, _HEAD, _OPEN, _POST, _PRE, _TEXT, _TRAIL, _WS, AfterBody
from .dialects import FUNCTION_CALL, Dialect
from .markers import NameHeader, OpenMarkers

__all__ = ["ToolCallParser"]


class ToolCallParser(AfterBody):
    """Extract tool calls written as text from a stream (see module docstring)."""

    def __init__(
        self,
        *,
        dialects: Sequence[Dialect] = (FUNCTION_CALL,),
        tool_names: Collection[str] | None = None,
        rescue: bool = False,
        id_prefix: str = "call_",
    ) -> None:
        if not dialects:
            raise UsageError("ToolCallParser needs at least one dialect")
        if rescue and tool_names is None:
            raise UsageError("rescue mode needs tool_names (only declared tools are rescued)")
        self._markers = OpenMarkers(dialects)
        self._starts = self._markers.starts
        self._one_start = self._starts[0] if len(self._starts) == 1 else ""
        # Fast path: text with no '<' and no ``_gate`` passes as is. Between feeds ``_gate`` is,
        # while the state is TEXT, the one start character other than '<' (a lone surrogate when
        # '<' is the only one: decoded text never holds it, and an ASCII text rules it out
        # without a scan; were it there, the slow path is still right), and "" (found in every
        # text: no fast path) otherwise or with more start characters.
        others = [c for c in self._starts if c != "<"] or ["\udfff"]
        self._text_gate = others[0] if len(others) == 1 else ""
        self._gate = self._text_gate
        self._default = dialects[0]
        self._tool_names = frozenset(tool_names) if tool_names is not None else None
        self._rescue = rescue
        self._id_prefix = id_prefix
        self._ledger = ToolCallLedger(id_prefix=id_prefix)
        self._state = _TEXT
        self._handlers: dict[int, Callable[[str, int], int]] = {
            _TEXT: self._on_text,
            _OPEN: self._on_open,
            _PRE: self._on_pre,
            _HEAD: self._on_head,
            _BODY: self._on_body,
            _POST: self._on_post,
            _TRAIL: self._on_trail,
        }
        self._out: list[StreamEvent] = []
        self._text: list[str] = []
        self._trailers: tuple[str, ...] = ()
        self.dialects_used: list[str] = []
        """Names (``Dialect.tag``) of the dialects calls were emitted in, first use first."""
        self._reset_call()

    def _reset_call(self) -> None:
        self._prefix = ""  # held marker prefix (OPEN, POST, TRAIL)
        self._dialect: Dialect = self._default
        self._raw: list[str] = []  # the whole call text so far
        self._header: NameHeader | None = None  # (HEAD)
        self._ticks = 0
        self._lang = False
        self._in_array = False
        self._body: CallBody | None = None
        self._post: list[str] = []
        self._call: ToolCall | None = None

    @property
    def calls(self) -> int:
        """Calls emitted so far (flagged ones included)."""
        return self._ledger.count

    @property
    def next_index(self) -> int:
        """``index`` of the next call (a wrapping decoder may raise it past native calls)."""
        return self._ledger.next_index

    @next_index.setter
    def next_index(self, value: int) -> None:
        self._ledger.next_index = value

    @property
    def idle(self) -> bool:
        """True when nothing is held."""
        return self._state == _TEXT

    def passes(self, text: str) -> bool:
        """True when ``feed(text)`` would give back ``text`` unchanged as one delta."""
        return "<" not in text and self._gate not in text

    # -- public API -------------------------------------------------------------------------
    def feed(self, text: str) -> list[StreamEvent]:
        if "<" not in text and self._gate not in text:  # fast path: plain text (see __init__)
            return [TextDelta(text)] if text else []
        if self._state == _CLOSED:
            raise UsageError("ToolCallParser.feed() after close(): make a new parser per stream")
        out: list[StreamEvent] = []
        self._out = out
        handlers = self._handlers
        i, n = 0, len(text)
        while i < n:
            i = handlers[self._state](text, i)
        if self._state == _BODY and self._call is not None:
            self._stream_args()
        self._flush_text()
        self._gate = self._text_gate if self._state == _TEXT else ""
        return out

    def close(self) -> list[StreamEvent]:
        """End of stream: release held text, close or flag an open call. Idempotent."""
        if self._state == _CLOSED:
            return []
        out: list[StreamEvent] = []
        self._out = out
        while self._state != _TEXT:  # a released header is scanned again: it may open more
            self._close_state()
        self._flush_text()
        self._state, self._gate = _CLOSED, ""
        return out

    def _close_state(self) -> None:
        state = self._state
        if state == _OPEN:
            self._text.append(self._prefix)
            self._prefix, self._state = "", _TEXT
        elif state == _HEAD:
            self._release_header()
        elif state in (_PRE, _BODY):
            self._cut_off()
        elif state == _POST:
            held = "".join(self._post) + self._prefix
            self._end_call()
            self._text.append(held)
        else:  # _TRAIL
            self._text.append("".join(self._post) + self._prefix)
            self._post, self._prefix, self._state = [], "", _TEXT

    # -- emission ---------------------------------------------------------------------------
    def _flush_text(self) -> None:
        if self._text:
            text = "".join(self._text)
            self._text = []
            if text:
                self._out.append(TextDelta(text))

    def _start_call(self, name: str) -> ToolCall:
        self._flush_text()
        ledger = self._ledger
        call = self._call = ledger.open(f"{self._id_prefix}{ledger.count}", name, self._out)
        if self._dialect.tag not in self.dialects_used:
            self.dialects_used.append(self._dialect.tag)
        self._stream_args()
        return call

    def _stream_args(self) -> None:
        assert self._body is not None and self._call is not None
        self._ledger.add(self._call, self._body.take_args_delta(), self._out)

    def _end_call(self) -> None:
        body = self._body
        assert body is not None
        call = self._call or self._start_call(body.name or "")
        _, args, error = body.result(truncated=self._state != _POST)
        self._ledger.add(call, body.untaken_arguments(), self._out)
        name = body.name or ""
        if error is None and self._tool_names is not None and name not in self._tool_names:
            declared = ", ".join(sorted(self._tool_names)) or "none"
            error = f"unknown tool {name!r} (declared: {declared})"
        data = {"raw_text": "".join(self._raw)} if error is not None else None
        self._ledger.end(call, self._out, parsed=(args, error), provider_data=data)
        self._reset_call()
        self._state = _TEXT

    def _release(self) -> None:
        """The held markup was not a call: it becomes text, byte-exact."""
        self._text.extend(self._raw)
        self._reset_call()
        self._state = _TEXT

    def _cut_off(self) -> None:
        """End of stream inside a call (PRE or BODY)."""
        if self._rescue and self._call is None:
            self._release()
            return
        if self._body is None:
            self._body = CallBody(self._dialect)
        self._end_call()

    def _rescan(self, held: str) -> None:
        """Held text that turned out not to be markup: scan it as text (it starts a marker)."""
        j = 0
        while j < len(held):
            j = self._handlers[self._state](held, j)

    # -- state handlers: (text, i) -> new i -------------------------------------------------
    def _on_text(self, s: str, i: int) -> int:
        markers = self._markers
        one = self._one_start
        j = s.find(one, i) if one else markers.find(s, i)
        if j < 0:
            self._text.append(s[i:] if i else s)
            return len(s)
        if j > i:
            self._text.append(s[i:j])
        n = len(s)
        if s[j : j + 2] not in markers.heads and n - j > 1:  # no marker starts here
            self._text.append(s[j])
            return j + 1
        for d, marker in markers.pairs:
            if s.startswith(marker, j):
                self._open_call(d, marker)
                return j + len(marker)
        if n - j < markers.longest and markers.is_prefix(s[j:]):
            self._prefix = s[j:]
            self._state = _OPEN
            return n
        self._text.append(s[j])
        return j + 1

    def _open_call(self, dialect: Dialect, marker: str) -> None:
        self._dialect = dialect
        self._raw = [marker]
        self._prefix = ""
        self._state = _PRE

    def _on_open(self, s: str, i: int) -> int:
        p = self._prefix
        for d, marker in self._markers.pairs:
            if marker.startswith(p) and s.startswith(marker[len(p) :], i):
                self._open_call(d, marker)
                return i + len(marker) - len(p)
        cand = p + s[i : i + self._markers.longest]
        if len(cand) - len(p) == len(s) - i and self._markers.is_prefix(cand):
            self._prefix = cand
            return len(s)
        self._text.append(p)  # not a marker: p holds no other start character (rule 1)
        self._prefix = ""
        self._state = _TEXT
        return i

    def _on_pre(self, s: str, i: int) -> int:
        n, start = len(s), i
        d = self._dialect
        while i < n:
            c = s[i]
            if 0 < self._ticks < 3:
                if c != "`":
                    break
                self._ticks += 1
                self._lang = self._ticks == 3
            elif self._lang and c.isascii() and c.isalnum():
                pass
            elif c in _WS:
                self._lang = False
            elif c == "`" and self._ticks == 0:
                self._ticks = 1
            elif c == "{":
                self._raw.append(s[start:i])
                self._body = CallBody(d)
                self._state = _BODY
                return i
            elif c == "[" and d.array and not self._in_array and not self._ticks:
                self._in_array = True
            elif d.header_end is not None and not self._in_array and not self._ticks:
                self._raw.append(s[start:i])
                self._header = NameHeader(d)
                self._state = _HEAD
                return i
            else:
                break
            i += 1
        self._raw.append(s[start:i])
        if i < n:
            self._release()
        return i

    def _on_head(self, s: str, i: int) -> int:
        header = self._header
        assert header is not None
        j, done, name = header.feed(s, i)
        self._raw.append(s[i:j])
        if not done:
            return j
        if name is None or (self._rescue and name not in (self._tool_names or ())):
            self._release_header()
            return j
        self._body = CallBody.for_arguments(self._dialect, name)
        self._state = _BODY
        self._start_call(name)
        return j

    def _release_header(self) -> None:
        """Not a call: the marker's first character is text and the rest is scanned again, so
        a call start inside a header that was only prose is still found (bounded work: a
        header is at most ``max_header`` characters)."""
        raw = "".join(self._raw)
        self._reset_call()
        self._state = _TEXT
        self._text.append(raw[0])
        self._rescan(raw[1:])

    def _on_body(self, s: str, i: int) -> int:
        body = self._body
        assert body is not None
        j = body.feed(s, i)
        self._raw.append(s[i:j])
        if body.name_ready and self._call is None:
            if self._rescue and body.name not in (self._tool_names or ()):
                self._release()
                return j
            assert body.name is not None
            self._start_call(body.name)
        if body.done:
            if self._rescue and self._call is None:
                self._release()
                return j
            if self._call is not None:
                self._stream_args()
            self._state = _POST
            self._ticks = 0
        return j

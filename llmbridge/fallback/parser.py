"""Streaming parser turning tagged tool calls in text deltas into tool-call events.

A sans-IO state machine in the spirit of h11: ``feed(text) -> events``, ``close() -> events``.
It never looks at how the text was chunked; the same text split anywhere gives the same events
once adjacent text deltas (and adjacent chunks of one call) are merged.

States (one handler each, in a table)::

    TEXT --'<' + whole open tag--> PRE --'{'--> BODY --object closed--> POST --close tag--> TEXT
      |  '<' + a prefix at the end of the chunk                          (whitespace, ``` fence,
      +--> OPEN (held) --rest of the tag--> PRE                             then the close tag)

Rules:

1. Plain text is found with ``str.find('<')``; text with no ``<`` costs one scan. A ``<`` is held
   back only while the text after it is still a prefix of an open tag, so ``a < b`` or
   ``<div>`` pass as soon as one character rules the tag out. A tag has exactly one ``<``, so a
   failed prefix never hides another tag start and is never re-scanned.
2. After the open tag come optional whitespace and an optional ```` ```json ```` fence, then
   ``{``. Anything else means it was not a call (e.g. ``<function_call>`` in a code span or a
   sentence): the held text is released as text, byte-exact.
3. Text before, between and after calls passes through byte-exact. Whitespace and fences
   inside the tag belong to the call and are not text.
4. The body is scanned by ``CallBody`` (linear; strings, escapes and nesting tracked across
   chunks). ``tool_call_start`` is emitted as soon as the name is known, ``tool_call_chunk``
   with the arguments text written in each feed, ``tool_call_end`` when the call is closed.
   ``raw_arguments`` is the exact text of the ``arguments`` value (for a JSON-string value: its
   decoded content); the joined chunks always equal it.
5. A call is closed by its close tag, or, if the model leaves it out, by the first text after
   the closed JSON object that is not whitespace, a fence or a close-tag prefix (that text then
   streams as text), or by the end of the stream.
6. Policy for bad calls (never a crash, never silently lost): the call is still emitted and its
   ``ToolCallEnd`` has ``error`` set and ``provider_data={"raw_text": <the whole tag text>}``:
   unknown tool name (``arguments`` still parsed), malformed JSON, no name, arguments that are
   not an object (``arguments={}``), a stream ending inside the tag (``arguments={}``,
   ``raw_arguments`` = what was written). A ``<`` or tag prefix at the end of the stream is text.
7. Rescue mode (``rescue=True``): text is only turned into a call once the name is known and is
   one of ``tool_names``; until then the tag is held, and it is released as text if the name is
   undeclared, missing, or the stream ends first.
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
from .dialects import FUNCTION_CALL, Dialect

__all__ = ["ToolCallParser"]

_TEXT, _OPEN, _PRE, _BODY, _POST, _CLOSED = range(6)
_WS = frozenset(" \t\r\n")


class ToolCallParser:
    """Extract ``<tag>{json}</tag>`` tool calls from streamed text (see module docstring)."""

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
        self._dialects = tuple(dialects)
        self._open_tags = tuple(d.open_tag for d in self._dialects)
        self._pairs = tuple(zip(self._dialects, self._open_tags, strict=True))
        self._max_tag = max(len(t) for t in self._open_tags)
        self._tool_names = frozenset(tool_names) if tool_names is not None else None
        self._rescue = rescue
        self._id_prefix = id_prefix
        self._ledger = ToolCallLedger(id_prefix=id_prefix)
        self._state = _TEXT
        self._handlers: dict[int, Callable[[str, int], int]] = {
            _TEXT: self._on_text,
            _OPEN: self._on_open,
            _PRE: self._on_pre,
            _BODY: self._on_body,
            _POST: self._on_post,
        }
        self._out: list[StreamEvent] = []
        self._text: list[str] = []
        self._reset_call()

    def _reset_call(self) -> None:
        self._prefix = ""  # held open-tag prefix (OPEN) or close-tag prefix (POST)
        self._dialect: Dialect = self._dialects[0]
        self._raw: list[str] = []  # the whole tag text so far
        self._ticks = 0
        self._lang = False
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
        """True when nothing is held: text without ``<`` would pass through unchanged."""
        return self._state == _TEXT

    # -- public API -------------------------------------------------------------------------
    def feed(self, text: str) -> list[StreamEvent]:
        if self._state == _TEXT and "<" not in text:  # fast path: plain text
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
        return out

    def close(self) -> list[StreamEvent]:
        """End of stream: release held text, close or flag an open call. Idempotent."""
        if self._state == _CLOSED:
            return []
        out: list[StreamEvent] = []
        self._out = out
        state = self._state
        if state == _OPEN:
            self._text.append(self._prefix)
        elif state in (_PRE, _BODY):
            self._cut_off()
        elif state == _POST:
            held = "".join(self._post) + self._prefix
            self._end_call()
            self._text.append(held)
        self._flush_text()
        self._state = _CLOSED
        return out

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
        self._stream_args()
        return call

    def _stream_args(self) -> None:
        assert self._body is not None and self._call is not None
        self._ledger.add(self._call, self._body.take_args_delta(), self._out)

    def _end_call(self, *, truncated: bool = False) -> None:
        body = self._body
        assert body is not None
        call = self._call or self._start_call(body.name or "")
        _, args, error = body.result(truncated=truncated)
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
        """The held tag was not a call: it becomes text, byte-exact."""
        self._text.extend(self._raw)
        self._reset_call()
        self._state = _TEXT

    def _cut_off(self) -> None:
        """End of stream inside a tag (PRE or BODY)."""
        if self._rescue and self._call is None:
            self._release()
            return
        if self._body is None:
            self._body = CallBody(self._dialect)
        self._end_call(truncated=True)

    # -- state handlers: (text, i) -> new i -------------------------------------------------
    def _on_text(self, s: str, i: int) -> int:
        j = s.find("<", i)
        if j < 0:
            self._text.append(s[i:] if i else s)
            return len(s)
        if j > i:
            self._text.append(s[i:j])
        n = len(s)
        for d, tag in self._pairs:
            if s.startswith(tag, j):
                self._open_call(d)
                return j + len(tag)
        if n - j < self._max_tag and any(tag.startswith(s[j:]) for tag in self._open_tags):
            self._prefix = s[j:]
            self._state = _OPEN
            return n
        self._text.append("<")
        return j + 1

    def _open_call(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._raw = [dialect.open_tag]
        self._prefix = ""
        self._state = _PRE

    def _on_open(self, s: str, i: int) -> int:
        p = self._prefix
        for d, tag in self._pairs:
            need = len(tag) - len(p)
            if tag.startswith(p) and s.startswith(tag[len(p) :], i):
                self._open_call(d)
                return i + need
        cand = p + s[i : i + self._max_tag]
        if len(cand) - len(p) == len(s) - i and any(
            tag.startswith(cand) for tag in self._open_tags
        ):
            self._prefix = cand
            return len(s)
        self._text.append(p)  # not a tag: p holds no other '<' (rule 1)
        self._prefix = ""
        self._state = _TEXT
        return i

    def _on_pre(self, s: str, i: int) -> int:
        n, start = len(s), i
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
                self._body = CallBody(self._dialect)
                self._state = _BODY
                return i
            else:
                break
            i += 1
        self._raw.append(s[start:i])
        if i < n:
            self._release()
        return i

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

    def _on_post(self, s: str, i: int) -> int:
        close = self._dialect.close_tag
        n = len(s)
        if self._prefix:  # a close-tag prefix held from the previous chunk
            p = self._prefix
            need = close[len(p) :]
            if s.startswith(need, i):
                self._raw.append(p + need)
                self._end_call()
                return i + len(need)
            if n - i < len(need) and need.startswith(s[i:]):
                self._prefix = p + s[i:]
                return n
            self._prefix = ""
            self._finish_without_close(p)
            return i
        start = i
        while i < n:
            c = s[i]
            if c in _WS or (c == "`" and self._ticks < 3):
                self._ticks += c == "`"
                i += 1
                continue
            if c == "<":
                self._post.append(s[start:i])
                self._raw.append(s[start:i])
                if s.startswith(close, i):
                    self._raw.append(close)
                    self._end_call()
                    return i + len(close)
                if n - i < len(close) and close.startswith(s[i:]):
                    self._prefix = s[i:]
                    return n
                self._finish_without_close("")
                return i
            break
        self._post.append(s[start:i])
        self._raw.append(s[start:i])
        if i < n:
            self._finish_without_close("")
        return i

    def _finish_without_close(self, held_prefix: str) -> None:
        """Rule 5: the call ends; held whitespace / fence (and a failed prefix) become text."""
        post = "".join(self._post)
        self._end_call()
        self._text.append(post)
        if held_prefix:  # starts with '<': may begin an open tag, so scan it as text
            j = 0
            while j < len(held_prefix):
                j = self._handlers[self._state](held_prefix, j)

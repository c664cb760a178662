"""A batch line from a template: the provider's own line for one shape of request, prepared
once per job, with each request's id and texts put in its place.

Rules:

* A request is *plain* when its messages are a list of system, user and assistant messages of
  non-empty ``TextPart``s only and non-empty strings, or one such string; its *shape* is each
  message's role (or that it is a string) and number of parts: a template's stand-in messages
  have the very form of the request's, whatever ``build`` makes of them. Anything else (tools results, images, reasoning, a cache point, ``provider_data``,
  an empty text) takes the slow path: ``build_request`` and the provider's ``prepare()`` for
  that request alone, as ``complete()`` does.
* A template is the adapter's own ``line()`` of the provider's own ``prepare()`` of a request of
  that shape and those options whose id and texts are sentinels (private-use characters, so
  JSON leaves them as they are). Each sentinel must occur exactly once in the line, or the shape
  is not templated (the slow path). A request's line is then the template's bytes between the
  sentinels joined with its own id and texts JSON-escaped (``orjson``: a string escapes the
  same wherever it stands), byte for byte the line the slow path writes
  (``tests/batch/test_batch_fast_path.py`` holds them equal per provider); the template's
  warnings are every such request's.
* Options match a template's only when they are strictly the same (``same``: equal plain
  values of the same types, dicts in the same key order, anything else the very object), so
  ``1`` and ``1.0`` or two equal-looking tool objects never share a template. A template that
  cannot be built (``prepare()`` refused the options) is not kept: the request takes the slow
  path, which raises the error with the request's own content.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from ..messages import ChatMessage
from ..parts import TextPart
from ..providers.prepared import Prepared
from ..request import ChatRequest

__all__ = [
    "BARE",
    "SENTINEL",
    "STRING",
    "Encoded",
    "Lines",
    "Shape",
    "Template",
    "plain",
    "same",
    "sentinel",
]

Shape = tuple[tuple[str, int], ...]
"""Each message's role and number of text parts (``STRING``: a string in the list; ``BARE``:
the messages were one string)."""
STRING, BARE = "<str>", "<bare str>"
Encoded = tuple[bytes, tuple[str, ...]]
"""A request's line and the warnings its ``prepare()`` gave."""
SENTINEL = ("\ue000", "\ue001")
"""What a sentinel is wrapped in (private-use characters: no JSON escapes them)."""
_ROLES = frozenset({"system", "user", "assistant"})
_PLAIN = (str, int, bool, type(None))


def sentinel(index: int) -> str:
    """The stand-in for value ``index`` (0: the id, then each text in order)."""
    return f"{SENTINEL[0]}{index}{SENTINEL[1]}"


def plain(messages: Any) -> tuple[Shape, list[str]] | None:
    """The shape and texts of plain messages (module rules); ``None``: not plain."""
    if type(messages) is str:
        return (((BARE, 1),), [messages]) if messages else None
    if type(messages) is not list:
        return None
    shape: list[tuple[str, int]] = []
    texts: list[str] = []
    for message in messages:
        if type(message) is str:
            if not message:
                return None
            shape.append((STRING, 1))
            texts.append(message)
            continue
        if type(message) is not ChatMessage or message.role not in _ROLES:
            return None
        for part in message.content:
            if type(part) is not TextPart or part.provider_data is not None:
                return None
            text = part.text
            if type(text) is not str or not text:
                return None
            texts.append(text)
        shape.append((message.role, len(message.content)))
    return tuple(shape), texts


def same(a: Any, b: Any) -> bool:
    """Whether two option values encode alike for sure (module rules)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _PLAIN:
        return bool(a == b)
    if kind is float:
        return bool(a.hex() == b.hex())  # -0.0 is not 0.0 on the wire
    if kind is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return False


@dataclass(frozen=True, slots=True)
class Template:
    """One shape's line with holes (module rules)."""

    options: dict[str, Any]
    pieces: tuple[bytes, ...]
    """The line's bytes between the holes (one more than ``order``)."""
    order: tuple[int, ...]
    """Which value fills each hole (0: the id, then the texts)."""
    warnings: tuple[str, ...]

    @classmethod
    def of(
        cls,
        shape: Shape,
        options: dict[str, Any],
        encode: Callable[[str, Any], Encoded],
    ) -> Template | None:
        """The template of ``shape`` and ``options``; ``None`` when a sentinel does not occur
        exactly once. ``encode(id, messages)``: the slow path's line and warnings."""
        messages: list[Any] = []
        count = 1
        for role, parts in shape:
            if role in (BARE, STRING):
                messages.append(sentinel(count))
            else:
                content = [TextPart(text=sentinel(count + n)) for n in range(parts)]
                messages.append(ChatMessage(role=role, content=content))  # type: ignore[arg-type]
            count += parts
        given = messages[0] if shape[:1] == ((BARE, 1),) else messages
        line, warnings = encode(sentinel(0), given)
        holes: list[tuple[int, int, int]] = []  # (start, end, value)
        for index in range(count):
            mark = sentinel(index).encode()
            start = line.find(mark)
            if start < 0 or line.find(mark, start + 1) >= 0:
                return None
            holes.append((start, start + len(mark), index))
        holes.sort()
        pieces, at = [], 0
        for start, end, _ in holes:
            pieces.append(line[at:start])
            at = end
        pieces.append(line[at:])
        order = tuple(index for _, _, index in holes)
        return cls(options, tuple(pieces), order, warnings)

    def fill(self, custom_id: str, texts: list[str]) -> bytes:
        """The line of the request ``custom_id`` with ``texts`` (its shape's)."""
        values = [custom_id, *texts]
        pieces = self.pieces
        out = [pieces[0]]
        for n, index in enumerate(self.order, 1):
            out.append(orjson.dumps(values[index])[1:-1])
            out.append(pieces[n])
        return b"".join(out)


class Lines:
    """A job's lines: from a template where the request is plain, else the slow path (module
    rules). ``build``: ``Client.build_request``; ``prepare``: the provider's; ``line``: the
    adapter's."""

    __slots__ = ("_build", "_line", "_model", "_prepare", "_templates")

    KEPT = 8
    """Templates kept per shape (the most recent first)."""

    def __init__(
        self,
        model: str,
        build: Callable[..., ChatRequest],
        prepare: Callable[[ChatRequest], Prepared],
        line: Callable[[str, Prepared], bytes],
    ) -> None:
        self._model = model
        self._build, self._prepare, self._line = build, prepare, line
        self._templates: dict[Shape, list[tuple[dict[str, Any], Template | None]]] = {}

    def slow(self, custom_id: str, messages: Any, options: dict[str, Any]) -> Encoded:
        """The line and warnings of one request by ``build_request`` and ``prepare()``."""
        chat = self._build(self._model, messages, stream=False, **options)
        prepared = self._prepare(chat)
        return self._line(custom_id, prepared), prepared.warnings

    def encode(self, custom_id: str, messages: Any, options: dict[str, Any]) -> Encoded:
        """The request's line and the warnings its ``prepare()`` gives."""
        found = plain(messages)
        if found is None:
            return self.slow(custom_id, messages, options)
        shape, texts = found
        template = self._template(shape, options)
        if template is None:
            return self.slow(custom_id, messages, options)
        return template.fill(custom_id, texts), template.warnings

    def _template(self, shape: Shape, options: dict[str, Any]) -> Template | None:
        """The template of ``shape`` and ``options``, made at first sight (``None``: none)."""
        kept = self._templates.setdefault(shape, [])
        for n, (given, template) in enumerate(kept):
            if same(given, options):
                if n:
                    kept.insert(0, kept.pop(n))
                return template
        try:
            made = Template.of(shape, options, lambda i, m: self.slow(i, m, options))
        except Exception:  # the slow path raises it again, with the request's own content
            made = None
        kept.insert(0, (options, made))
        del kept[self.KEPT :]
        return made

"""Bounds on the work a JSON schema can make an encoder do, checked without recursion.

Rules (issue 34, items 1 and 6): every schema a request carries (tool parameters, a
``response_format``) is checked before an encoder walks it, by ``check_schema_bounds``:

* JSON containers nest at most ``MAX_JSON_DEPTH`` deep (a schema level is about two: a
  ``properties`` map, then the property's schema), so no walker reaches Python's recursion
  limit and orjson (255 levels) can still encode the body;
* with ``inlined=True`` (an encoder for an API without ``$ref``, Gemini's ``Schema``), the
  schema with every local ``$ref`` inlined — what that encoder must build — has at most ``MAX_INLINED_SCHEMAS`` JSON objects. The
  count is a linear pass over the schema and its ``$defs`` (each definition's inlined size is
  computed once; a reference back into a definition being counted counts as one, as the
  encoders cut recursion there), so a "billion laughs" schema of definitions that each refer
  to the next twice fails at once instead of expanding.

Past a bound is a ``ToolSchemaError`` naming the bound. Walkers that inline references along
their own paths (``SchemaBudget``) also count what they build, so a schema whose references
form a dense cycle (every definition referring to every other) stops at the same bound.
"""

from __future__ import annotations

from typing import Any

from .errors import ToolSchemaError

__all__ = ["MAX_INLINED_SCHEMAS", "MAX_JSON_DEPTH", "SchemaBudget", "check_schema_bounds"]

MAX_JSON_DEPTH = 130
"""JSON containers (objects, arrays) a schema may nest: ``MAX_DEPTH`` (64) schema levels."""
MAX_INLINED_SCHEMAS = 50_000
"""JSON objects a schema may hold once every local ``$ref`` is inlined."""

_PENDING = -1  # a definition whose size is being counted (a reference back to it counts 1)


def check_schema_bounds(
    schema: Any, *, what: str = "tool parameters", inlined: bool = False
) -> None:
    """Raise ``ToolSchemaError`` when ``schema`` nests too deep or (``inlined``) would
    inline to too large a tree."""
    _check_depth(schema, what)
    if not inlined:
        return
    sizes: dict[str, int] = {}
    if _inlined_size(schema, schema, sizes) > MAX_INLINED_SCHEMAS:
        raise _too_large(what)


def _too_large(what: str) -> ToolSchemaError:
    return ToolSchemaError(
        f"{what}: the schema holds more than {MAX_INLINED_SCHEMAS:,} subschemas once its $refs "
        "are inlined (as providers without $ref support, such as Gemini, need); share fewer "
        "definitions or flatten it"
    )


def _check_depth(schema: Any, what: str) -> None:
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ToolSchemaError(
                f"{what}: the schema nests deeper than {MAX_JSON_DEPTH} levels of JSON "
                "(about 64 schema levels); flatten it or use $defs"
            )
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, dict | list))


def _target(root: Any, ref: str) -> Any:
    node = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        node = node.get(token) if isinstance(node, dict) else None
    return node


def _inlined_size(root: Any, node: Any, sizes: dict[str, int]) -> int:
    """Objects in ``node`` with its references inlined, capped past the bound. Iterative:
    a definition's size is counted before the node that refers to it (a work stack)."""
    total = 0
    work: list[Any] = [node]
    while work:
        item = work.pop()
        if isinstance(item, list):
            work.extend(v for v in item if isinstance(v, dict | list))
            continue
        if not isinstance(item, dict):
            continue
        total += 1
        ref = item.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            total += _ref_size(root, ref, sizes)
        work.extend(
            v
            for k, v in item.items()
            if isinstance(v, dict | list) and k not in ("$defs", "definitions")
        )
        if total > MAX_INLINED_SCHEMAS:
            return total
    return total


def _ref_size(root: Any, ref: str, sizes: dict[str, int]) -> int:
    """The inlined size of the definition ``ref`` names, counted once (iteratively: the
    definitions it needs are counted first, on an explicit stack)."""
    known = sizes.get(ref)
    if known is not None:
        return 1 if known == _PENDING else known
    order: list[str] = [ref]
    while order:
        current = order[-1]
        if sizes.get(current) not in (None, _PENDING):
            order.pop()
            continue
        sizes[current] = _PENDING
        target = _target(root, current)
        missing = [r for r in _refs(target) if r not in sizes]
        if missing:
            order.extend(missing)
            continue
        size = _local_size(target, sizes)
        sizes[current] = min(size, MAX_INLINED_SCHEMAS + 1)
        order.pop()
    return sizes[ref]


def _refs(node: Any) -> list[str]:
    """The local references inside ``node`` (not inside nested ``$defs``)."""
    found: list[str] = []
    work = [node]
    while work:
        item = work.pop()
        if isinstance(item, list):
            work.extend(v for v in item if isinstance(v, dict | list))
        elif isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                found.append(ref)
            work.extend(
                v
                for k, v in item.items()
                if isinstance(v, dict | list) and k not in ("$defs", "definitions")
            )
    return found


def _local_size(node: Any, sizes: dict[str, int]) -> int:
    """Objects in ``node`` plus the known sizes of the references it holds."""
    total = 0
    work = [node]
    while work:
        item = work.pop()
        if isinstance(item, list):
            work.extend(v for v in item if isinstance(v, dict | list))
        elif isinstance(item, dict):
            total += 1
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                known = sizes.get(ref, 1)
                total += 1 if known == _PENDING else known
            work.extend(
                v
                for k, v in item.items()
                if isinstance(v, dict | list) and k not in ("$defs", "definitions")
            )
    return total


class SchemaBudget:
    """What a walker that inlines references has built: at most ``MAX_INLINED_SCHEMAS``
    objects and ``MAX_JSON_DEPTH`` levels, whatever the reference graph."""

    __slots__ = ("depth", "nodes", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self.nodes = 0
        self.depth = 0

    def enter(self) -> None:
        self.nodes += 1
        self.depth += 1
        if self.nodes > MAX_INLINED_SCHEMAS:
            raise _too_large(self.what)
        if self.depth > MAX_JSON_DEPTH:
            raise ToolSchemaError(
                f"{self.what}: the schema nests deeper than {MAX_JSON_DEPTH} levels once its "
                "$refs are inlined; flatten it"
            )

    def leave(self) -> None:
        self.depth -= 1

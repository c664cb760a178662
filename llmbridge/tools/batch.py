"""One turn's tool calls, run with bounds: how many at once, and how many at all.

A hostile or prompt-injected model can ask for thousands of calls in one turn (2,000 ran
2,000 tool bodies at once before these bounds). Rules:

* ``max_tool_calls`` (default ``DEFAULT_MAX_TOOL_CALLS``, 256): the calls of one turn past
  the first ``max_tool_calls``, in call order, are not run, nor asked about: each gets an
  ``is_error`` result (``ToolLimitError``) the model reads, saying how many ran. The loop goes
  on; nothing is raised.
* ``max_parallel_tools`` (default ``DEFAULT_MAX_PARALLEL_TOOLS``, 16): at most this many tool
  bodies run at once. The calls start in call order as earlier ones finish (a pool of that
  many workers, not one task per call); results come back in call order.
* ``None`` for either: no bound (the app takes that on itself). Anything but a positive
  ``int`` or ``None`` is a ``UsageError``, when the bound is given (``check_bound``).
* Where a bound comes from: ``client.run(...)``'s argument, else the ``Client``'s, else the
  ``ToolRegistry``'s (``INHERIT``: not given at that level).
* Approval (``gate``) is asked one call at a time, in call order, before any call runs, and
  only for calls within the cap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from ..errors import UsageError
from ..parts import ToolCallPart
from .errors import ToolLimitError
from .results import ToolResult, result_message

__all__ = [
    "DEFAULT_MAX_PARALLEL_TOOLS",
    "DEFAULT_MAX_TOOL_CALLS",
    "INHERIT",
    "bound",
    "check_bound",
    "run_batch",
]

DEFAULT_MAX_PARALLEL_TOOLS = 16
"""Tool bodies running at once, at most (``ToolRegistry``, ``Client`` and ``run``)."""
DEFAULT_MAX_TOOL_CALLS = 256
"""Tool calls run per model turn, at most; later ones get an error result."""
INHERIT: Any = object()
"""A bound not given at this level: the next level's applies (see module rules)."""


def check_bound(value: Any, name: str) -> int | None:
    """``value`` as a bound: a positive ``int`` or ``None`` (no bound)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    raise UsageError(f"{name} must be a positive int, or None for no bound; got {value!r}")


def bound(given: Any, inherited: int | None, name: str) -> int | None:
    """``given`` checked, or ``inherited`` when it is ``INHERIT``."""
    return inherited if given is INHERIT else check_bound(given, name)


def over_cap(call: ToolCallPart, *, asked: int, cap: int) -> ToolResult:
    """The error result of a call past the turn's cap."""
    exc = ToolLimitError(
        f"Tool call {call.name!r} was not run: this turn asked for {asked} tool calls and at "
        f"most {cap} run per turn (max_tool_calls); the first {cap} ran. Ask for fewer calls "
        "at once.",
        tool_name=call.name,
    )
    return result_message(call_id=call.id, name=call.name, exception=exc)


async def run_batch(
    calls: Sequence[ToolCallPart],
    *,
    gate: Callable[[ToolCallPart], Awaitable[ToolResult | None]],
    run: Callable[[ToolCallPart], Awaitable[ToolResult]],
    max_parallel: int | None,
    max_calls: int | None,
) -> list[ToolResult]:
    """The results of ``calls`` in call order: capped, gated one by one, then run at most
    ``max_parallel`` at once (see module rules)."""
    kept = len(calls) if max_calls is None else min(len(calls), max_calls)
    results: list[ToolResult | None] = [await gate(call) for call in calls[:kept]]
    results += [over_cap(c, asked=len(calls), cap=kept) for c in calls[kept:]]
    waiting = iter([i for i, result in enumerate(results) if result is None])

    async def worker() -> None:
        for i in waiting:  # one iterator shared by the workers: each call runs once
            results[i] = await run(calls[i])

    todo = sum(1 for result in results if result is None)
    workers = todo if max_parallel is None else min(todo, max_parallel)
    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)
    return [result for result in results if result is not None]

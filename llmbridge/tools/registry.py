"""``ToolRegistry``: the tools an app offers, validated and called by name.

Rules:

* ``register`` takes a ``@tool`` function, a ``ToolSpec`` built by ``from_function``, or any
  object with ``name`` and ``call(arguments)`` (sync or async; its ``tool_spec``, or its
  ``description`` and ``input_schema`` / ``parameters``, describe it). Anything else is a
  ``TypeError``; so is a second tool with a name already taken.
* ``call`` / ``acall`` validate the arguments first (``ToolArgumentsError``), then run the tool
  and return what it returned; an unknown name is a ``KeyError``. Sync functions run in a
  worker thread under ``acall`` so concurrent calls do not block the event loop.
* Limits, per tool: ``max_invocations`` counts runs of the tool, ``max_exceptions`` counts runs
  that raised or timed out; past either, the call raises ``ToolLimitError`` without running.
  ``timeout`` (seconds) bounds each run (``ToolTimeoutError``).
* ``execute`` / ``execute_all`` are what the tool loop uses: they never raise for a failing
  call; the failure becomes an ``is_error`` ``ToolResult`` the model can read.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from ..errors import ToolArgumentsError, UsageError
from ..messages import ToolCallPart
from ..request import ToolSpec
from .context import ToolContext
from .decorator import tool_spec_of
from .errors import ToolLimitError, ToolTimeoutError
from .results import ToolResult, result_message

__all__ = ["ToolRegistry"]


@dataclass(slots=True)
class _Entry:
    spec: ToolSpec
    target: Any
    """The function (``from_function`` specs) or the object with ``call(arguments)``."""
    is_function: bool
    max_invocations: int | None
    max_exceptions: int | None
    timeout: float | None
    invocations: int = 0
    exceptions: int = 0


def _spec_for_object(obj: Any) -> ToolSpec:
    spec = tool_spec_of(obj)
    if spec is not None:
        return spec
    schema = getattr(obj, "input_schema", None) or getattr(obj, "parameters", None)
    description = getattr(obj, "description", None) or ""
    if schema is None:
        return ToolSpec(name=obj.name, description=description)
    return ToolSpec.from_json_schema(obj.name, description, schema)


class ToolRegistry:
    """Tools by name, with validation, limits, a timeout and result messages."""

    def __init__(
        self,
        tools: Iterable[Any] = (),
        *,
        timeout: float | None = None,
        max_invocations: int | None = None,
        max_exceptions: int | None = None,
        run_sync_in_thread: bool = True,
    ) -> None:
        self.timeout = timeout
        self.max_invocations = max_invocations
        self.max_exceptions = max_exceptions
        self.run_sync_in_thread = run_sync_in_thread
        self._entries: dict[str, _Entry] = {}
        for item in tools:
            self.register(item)

    # -- registration --------------------------------------------------------------------
    def register(
        self,
        tool: Any,
        *,
        max_invocations: int | None = None,
        max_exceptions: int | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Add a tool (returned unchanged, so this works as a decorator too)."""
        spec = tool_spec_of(tool)
        if spec is not None and spec.function is not None:
            target, is_function = spec.function, True
        elif isinstance(getattr(tool, "name", None), str) and callable(getattr(tool, "call", None)):
            spec, target, is_function = _spec_for_object(tool), tool, False
        elif inspect.isfunction(tool) or inspect.ismethod(tool):  # a plain function, as stream()
            spec = ToolSpec.from_function(tool)  # takes: described from its signature
            target, is_function = tool, True
        else:
            raise UsageError(
                f"cannot register {tool!r}: expected a function (decorated with @llmbridge.tool "
                "or plain), a ToolSpec.from_function(...) spec, or an object with 'name' and "
                "'call(arguments)'"
            )
        if spec.name in self._entries:
            raise UsageError(
                f"a tool named {spec.name!r} is already registered: give one of them another "
                "name (@llmbridge.tool(name=...))"
            )
        self._entries[spec.name] = _Entry(
            spec=spec,
            target=target,
            is_function=is_function,
            max_invocations=max_invocations
            if max_invocations is not None
            else self.max_invocations,
            max_exceptions=max_exceptions if max_exceptions is not None else self.max_exceptions,
            timeout=timeout if timeout is not None else self.timeout,
        )
        return tool

    # -- views ---------------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def names(self) -> list[str]:
        return list(self._entries)

    def specs(self) -> list[ToolSpec]:
        """The specs to send to the model, in registration order."""
        return [entry.spec for entry in self._entries.values()]

    def describe(self) -> dict[str, dict[str, Any]]:
        """``{name: {"description": ..., "input_schema": ...}}`` for every tool."""
        return {
            name: {"description": e.spec.description, "input_schema": e.spec.parameters}
            for name, e in self._entries.items()
        }

    def reset_limits(self) -> None:
        """Forget invocation and exception counts (e.g. for a new conversation)."""
        for entry in self._entries.values():
            entry.invocations = entry.exceptions = 0

    # -- calling -------------------------------------------------------------------------
    def _entry(self, name: str) -> _Entry:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "none"
            raise KeyError(f"unknown tool {name!r} (registered: {known})") from None

    def _check_limits(self, entry: _Entry) -> None:
        name = entry.spec.name
        if entry.max_invocations is not None and entry.invocations >= entry.max_invocations:
            raise ToolLimitError(
                f"Tool {name!r} may not be called again: it has been called "
                f"{entry.invocations} times, the limit is {entry.max_invocations}.",
                tool_name=name,
            )
        if entry.max_exceptions is not None and entry.exceptions >= entry.max_exceptions:
            raise ToolLimitError(
                f"Tool {name!r} is disabled: it failed {entry.exceptions} times.",
                tool_name=name,
            )

    def _prepare(
        self, entry: _Entry, arguments: Mapping[str, Any] | None, context: Any, call_id: str | None
    ) -> Callable[[], Any]:
        """Validate, check limits and return a zero-argument callable running the tool."""
        validated = entry.spec.validate_arguments(arguments)
        self._check_limits(entry)
        if not entry.is_function:
            return functools.partial(entry.target.call, validated)
        sig = entry.spec._binding.signature if entry.spec._binding else None
        assert sig is not None
        args: list[Any] = []
        if sig.context_param is not None:
            args.append(ToolContext(context, tool_name=entry.spec.name, tool_call_id=call_id))
        args.extend(validated.pop(name) for name in sig.positional_only)
        return functools.partial(entry.target, *args, **validated)

    def call(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, context: Any = None
    ) -> Any:
        """Run a tool from sync code and return its result (async tools get an event loop)."""
        entry = self._entry(name)
        if self._is_async(entry):
            return anyio.run(functools.partial(self.acall, name, arguments, context=context))
        run = self._prepare(entry, arguments, context, None)
        entry.invocations += 1
        try:
            return run()
        except Exception:
            entry.exceptions += 1
            raise

    async def acall(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        call_id: str | None = None,
    ) -> Any:
        """Run a tool and return its result (validation first, then limits and timeout)."""
        entry = self._entry(name)
        run = self._prepare(entry, arguments, context, call_id)
        entry.invocations += 1
        try:
            with anyio.move_on_after(entry.timeout) as scope:
                result = await self._run(entry, run)
        except Exception:
            entry.exceptions += 1
            raise
        if scope.cancelled_caught:
            entry.exceptions += 1
            raise ToolTimeoutError(
                f"Tool {name!r} did not finish within {entry.timeout} seconds.",
                tool_name=name,
                timeout=entry.timeout or 0.0,
            )
        return result

    def _is_async(self, entry: _Entry) -> bool:
        if entry.is_function:
            sig = entry.spec._binding.signature if entry.spec._binding else None
            return bool(sig and sig.is_async)
        return inspect.iscoroutinefunction(entry.target.call)

    async def _run(self, entry: _Entry, run: Callable[[], Any]) -> Any:
        if entry.is_function and not self._is_async(entry) and self.run_sync_in_thread:
            return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        result = run()
        if inspect.isawaitable(result):
            result = await result
        return result

    async def execute(self, call: ToolCallPart, *, context: Any = None) -> ToolResult:
        """Run one model tool call; failures become ``is_error`` results, never exceptions."""
        if call.error is not None:
            exc: Exception = ToolArgumentsError(
                f"Could not read the arguments of tool {call.name!r}: {call.error}. "
                "Call the tool again with a valid JSON object.",
                tool_name=call.name,
            )
            return result_message(call_id=call.id, name=call.name, exception=exc)
        if call.name not in self._entries:
            known = ", ".join(self._entries) or "none"
            exc = ToolArgumentsError(
                f"Unknown tool {call.name!r}. Available tools: {known}.", tool_name=call.name
            )
            return result_message(call_id=call.id, name=call.name, exception=exc)
        try:
            value = await self.acall(call.name, call.arguments, context=context, call_id=call.id)
        except Exception as exc:  # every tool failure is reported to the model
            return result_message(call_id=call.id, name=call.name, exception=exc)
        return result_message(call_id=call.id, name=call.name, value=value)

    async def execute_all(
        self, calls: Sequence[ToolCallPart], *, context: Any = None
    ) -> list[ToolResult]:
        """Run calls concurrently; results come back in the order of ``calls``."""
        results: list[ToolResult | None] = [None] * len(calls)

        async def one(i: int, call: ToolCallPart) -> None:
            results[i] = await self.execute(call, context=context)

        async with anyio.create_task_group() as tg:
            for i, call in enumerate(calls):
                tg.start_soon(one, i, call)
        return [r for r in results if r is not None]

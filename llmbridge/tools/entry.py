"""One registered tool: its spec, its target, its limits and counts, and how a run of it is
prepared and awaited (``ToolRegistry`` keeps these by name).

Rules: ``prepare`` validates the arguments first (``ToolArgumentsError``), then checks the
limits (``max_invocations`` counts runs, ``max_exceptions`` counts runs that raised or timed
out; past either, ``ToolLimitError`` without running), and returns a zero-argument callable:
a function tool gets its ``ToolContext`` (when it declares one) and positional-only arguments
placed; any other tool gets ``call(arguments)``. ``run`` awaits it, a sync function in a worker
thread when asked (so concurrent calls do not block the event loop). Counting is the
registry's, around ``run``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from ..specs.context import ToolContext
from ..tool_spec import ToolSpec
from .approval import ApprovalRule
from .decorator import tool_spec_of
from .errors import ToolLimitError

__all__ = ["ToolEntry", "every_entry", "spec_for_object"]


@dataclass(slots=True)
class ToolEntry:
    spec: ToolSpec
    target: Any
    """The function (``from_function`` specs) or the object with ``call(arguments)``."""
    is_function: bool
    max_invocations: int | None
    max_exceptions: int | None
    timeout: float | None
    approval: ApprovalRule | None = None
    server: str | None = None
    """The MCP server the tool came from (``None`` for the app's own tools)."""
    invocations: int = 0
    exceptions: int = 0

    def check_limits(self) -> None:
        name = self.spec.name
        if self.max_invocations is not None and self.invocations >= self.max_invocations:
            raise ToolLimitError(
                f"Tool {name!r} may not be called again: it has been called "
                f"{self.invocations} times, the limit is {self.max_invocations}.",
                tool_name=name,
            )
        if self.max_exceptions is not None and self.exceptions >= self.max_exceptions:
            raise ToolLimitError(
                f"Tool {name!r} is disabled: it failed {self.exceptions} times.",
                tool_name=name,
            )

    def prepare(
        self, arguments: Mapping[str, Any] | None, context: Any, call_id: str | None
    ) -> Callable[[], Any]:
        """Validate, check limits and return a zero-argument callable running the tool."""
        validated = self.spec.validate_arguments(arguments)
        self.check_limits()
        if not self.is_function:
            return functools.partial(self.target.call, validated)
        sig = self.spec._binding.signature if self.spec._binding else None
        assert sig is not None
        args: list[Any] = []
        if sig.context_param is not None:
            args.append(ToolContext(context, tool_name=self.spec.name, tool_call_id=call_id))
        args.extend(validated.pop(name) for name in sig.positional_only)
        return functools.partial(self.target, *args, **validated)

    @property
    def is_async(self) -> bool:
        if self.is_function:
            sig = self.spec._binding.signature if self.spec._binding else None
            return bool(sig and sig.is_async)
        return inspect.iscoroutinefunction(self.target.call)

    async def run(self, run: Callable[[], Any], *, in_thread: bool) -> Any:
        """Await one prepared run (a sync function in a worker thread when ``in_thread``)."""
        if self.is_function and not self.is_async and in_thread:
            return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        result = run()
        if inspect.isawaitable(result):
            result = await result
        return result


def every_entry(entry: ToolEntry) -> bool:
    """The filter of a registry that is no view: every entry."""
    return True


def spec_for_object(obj: Any) -> ToolSpec:
    """The spec of a registered object: its ``tool_spec``, or its name, description and
    ``input_schema`` / ``parameters``."""
    spec = tool_spec_of(obj)
    if spec is not None:
        return spec
    schema = getattr(obj, "input_schema", None) or getattr(obj, "parameters", None)
    description = getattr(obj, "description", None) or ""
    if schema is None:
        return ToolSpec(name=obj.name, description=description)
    return ToolSpec.from_json_schema(obj.name, description, schema)

"""``ToolRegistry``: the tools an app offers, validated and called by name.

Rules:

* ``register`` takes a ``@tool`` function, a ``ToolSpec`` built by ``from_function``, or any
  object with ``name`` and ``call(arguments)`` (sync or async; its ``tool_spec``, or its
  ``description`` and ``input_schema`` / ``parameters``, describe it). Anything else is a
  ``TypeError``; so is a second tool with a name already taken.
* ``call`` / ``acall`` validate the arguments first (``ToolArgumentsError``), then run the tool
  and return what it returned; an unknown name is a ``ToolNotFoundError`` (also a ``KeyError``). Sync functions run in a
  worker thread under ``acall`` so concurrent calls do not block the event loop.
* Limits, per tool: ``max_invocations`` counts runs of the tool, ``max_exceptions`` counts runs
  that raised or timed out; past either, the call raises ``ToolLimitError`` without running.
  ``timeout`` (seconds) bounds each run (``ToolTimeoutError``).
* ``execute`` / ``execute_all`` are what the tool loop uses: they never raise for a failing
  call; the failure becomes an ``is_error`` ``ToolResult`` the model can read. They also apply
  approval rules (``llmbridge.tools.approval``): ``execute_all`` asks the approver about each
  call that needs it, one at a time in call order, before running the approved calls.
* Bounds per turn (``llmbridge.tools.batch``): ``max_parallel_tools`` tool bodies at once
  (default 16), ``max_tool_calls`` calls run (default 256; later calls get an error result
  the model reads); ``None``: no bound. ``Client`` and ``client.run`` may override them.
* Every tool may carry the MCP ``server`` it came from (``describe()`` shows it).
  ``subset(servers=..., tools=...)`` is a live *view*: it shares the tool entries (so limits
  and counts are shared: a tool called through a view counts once, everywhere) and follows
  the full registry when tools come and go (an MCP server's ``tools/list_changed``). Register
  on the full registry, not on a view. A server or tool a view lacks is a ``UsageError``.
* ``search(query)`` ranks the tools by their names and descriptions (``tools/search.py``):
  the deferred ones (``ToolSpec.defer_loading``) when there are any, else all. It answers a
  client-executed ``ToolSearch`` in the tool loop.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread

from ..errors import UsageError
from ..parts import ToolCallPart
from ..telemetry import Telemetry
from ..tool_spec import ToolSpec
from .approval import ApprovalRule, Approver, check_rule
from .batch import (
    DEFAULT_MAX_PARALLEL_TOOLS,
    DEFAULT_MAX_TOOL_CALLS,
    INHERIT,
    bound,
    check_bound,
    run_batch,
)
from .decorator import tool_spec_of
from .entry import ToolEntry, every_entry, spec_for_object
from .errors import ToolNotFoundError, ToolTimeoutError
from .gate import gate, refusal
from .results import ToolResult, result_message

__all__ = ["ToolRegistry"]

ToolT = TypeVar("ToolT")
"""A registered tool, returned as given (``@registry.register`` keeps its type)."""


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
        approve: Approver | None = None,
        max_parallel_tools: int | None = DEFAULT_MAX_PARALLEL_TOOLS,
        max_tool_calls: int | None = DEFAULT_MAX_TOOL_CALLS,
    ) -> None:
        """``approve``: the app's approver for calls that need approval (``Client.run``'s
        ``approve=`` takes precedence for its loop). ``max_parallel_tools``: tool bodies
        running at once in a turn (16); ``max_tool_calls``: calls run per turn (256), later
        ones get an error result; ``None``: no bound (``llmbridge.tools.batch``)."""
        self.max_parallel_tools = check_bound(max_parallel_tools, "max_parallel_tools")
        self.max_tool_calls = check_bound(max_tool_calls, "max_tool_calls")
        self.timeout = timeout
        self.max_invocations = max_invocations
        self.max_exceptions = max_exceptions
        self.run_sync_in_thread = run_sync_in_thread
        self.approve = approve
        self._own: dict[str, ToolEntry] = {}
        self._parent: ToolRegistry | None = None
        self._servers: set[str] = set()  # a view's: those it was made for (or its parent's)
        self._pick: Callable[[ToolEntry], bool] = every_entry
        for item in tools:
            self.register(item)

    @property
    def _entries(self) -> dict[str, ToolEntry]:
        if self._parent is None:
            return self._own
        return {n: e for n, e in self._parent._entries.items() if self._pick(e)}

    # -- registration --------------------------------------------------------------------
    def register(
        self,
        tool: ToolT,
        *,
        max_invocations: int | None = None,
        max_exceptions: int | None = None,
        timeout: float | None = None,
        approval: ApprovalRule | None = None,
        server: str | None = None,
    ) -> ToolT:
        """Add a tool (returned unchanged and typed as given, so this works as a decorator
        too). ``approval`` and ``server`` default to the tool's own ``approval`` / ``server``
        attributes."""
        if self._parent is not None:
            raise UsageError("register tools on the full registry, not on a subset() view")
        target: Any
        spec = tool_spec_of(tool)
        if spec is not None and spec.function is not None:
            target, is_function = spec.function, True
        elif isinstance(getattr(tool, "name", None), str) and callable(getattr(tool, "call", None)):
            spec, target, is_function = spec_for_object(tool), tool, False
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
        if approval is None:
            approval = getattr(tool, "approval", None)
        if server is None:
            server = getattr(tool, "server", None)
        self._own[spec.name] = ToolEntry(
            spec=spec,
            target=target,
            is_function=is_function,
            max_invocations=max_invocations
            if max_invocations is not None
            else self.max_invocations,
            max_exceptions=max_exceptions if max_exceptions is not None else self.max_exceptions,
            timeout=timeout if timeout is not None else self.timeout,
            approval=check_rule(approval, where=f"tool {spec.name!r}"),
            server=server if isinstance(server, str) else None,
        )
        if isinstance(server, str):
            self._servers.add(server)
        return tool

    def unregister(self, name: str) -> None:
        """Remove a tool (``ToolNotFoundError`` if there is none by that name)."""
        if self._parent is not None:
            raise UsageError("unregister tools on the full registry, not on a subset() view")
        self._entry(name)
        del self._own[name]

    def subset(
        self,
        servers: Iterable[str] | None = None,
        tools: Iterable[str] | None = None,
        *,
        approve: Approver | None = None,
    ) -> ToolRegistry:
        """A live view of the tools of ``servers`` plus the ``tools`` named (their union;
        ``None`` for both: everything). Usable wherever a registry is (``tools=``,
        ``client.run``). A server or tool name this registry (or view) does not have is a
        ``UsageError``; one name may be given as a plain string."""
        wanted_servers = {servers} if isinstance(servers, str) else set(servers or ())
        wanted_tools = {tools} if isinstance(tools, str) else set(tools or ())
        entries = self._entries
        servers_here = self._servers | {e.server for e in entries.values() if e.server}
        where = "here" if self._parent is None else "in this view"
        asked = (("server", wanted_servers, servers_here), ("tool", wanted_tools, set(entries)))
        problems = [_unknown(k, want - have, have, where) for k, want, have in asked if want - have]
        if problems:
            raise UsageError("subset(): " + "; ".join(problems))
        everything = servers is None and tools is None
        inner = self._pick

        def pick(entry: ToolEntry) -> bool:
            mine = everything or entry.server in wanted_servers or entry.spec.name in wanted_tools
            return mine and inner(entry)

        view = ToolRegistry(
            timeout=self.timeout,
            max_invocations=self.max_invocations,
            max_exceptions=self.max_exceptions,
            run_sync_in_thread=self.run_sync_in_thread,
            approve=approve or self.approve,
            max_parallel_tools=self.max_parallel_tools,
            max_tool_calls=self.max_tool_calls,
        )
        view._parent, view._pick = self._parent or self, pick
        view._servers = self._servers if everything else wanted_servers
        return view

    def declare_server(self, name: str) -> None:
        """Make ``name`` a known server for ``subset`` even while it has no tools (an MCP
        server that failed to start or lists none)."""
        (self._parent or self)._servers.add(name)

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

    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        algorithm: Literal["bm25", "regex"] = "bm25",
        deferred_only: bool | None = None,
    ) -> list[ToolSpec]:
        """The tools matching ``query``, best first, at most ``limit`` (see module rules).
        ``deferred_only``: ``None`` searches the deferred tools if any, else every tool."""
        from .search import rank_tools

        specs = self.specs()
        if deferred_only or (deferred_only is None and any(s.defer_loading for s in specs)):
            specs = [s for s in specs if s.defer_loading]
        return rank_tools(query, specs, limit=limit, algorithm=algorithm)

    def describe(self) -> dict[str, dict[str, Any]]:
        """``{name: {"description": ..., "input_schema": ...}}`` for every tool, plus
        ``"server"`` for tools of an MCP server and ``"approval"`` where one is set."""
        out: dict[str, dict[str, Any]] = {}
        for name, e in self._entries.items():
            item: dict[str, Any] = {"description": e.spec.description}
            item["input_schema"] = e.spec.parameters
            if e.server is not None:
                item["server"] = e.server
            if e.approval is not None and e.approval != "never":
                item["approval"] = e.approval if isinstance(e.approval, str) else "rule"
            out[name] = item
        return out

    def server_of(self, name: str) -> str | None:
        """The MCP server a tool came from (``None`` for the app's own tools)."""
        return self._entry(name).server

    def reset_limits(self) -> None:
        """Forget invocation and exception counts (e.g. for a new conversation)."""
        for entry in self._entries.values():
            entry.invocations = entry.exceptions = 0

    # -- calling -------------------------------------------------------------------------
    def _entry(self, name: str) -> ToolEntry:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "none"
            raise ToolNotFoundError(
                f"unknown tool {name!r} (registered: {known})", tool_name=name
            ) from None

    def call(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, context: Any = None
    ) -> Any:
        """Run a tool from sync code and return its result (async tools get an event loop)."""
        entry = self._entry(name)
        if entry.is_async:
            return anyio.run(functools.partial(self.acall, name, arguments, context=context))
        run = entry.prepare(arguments, context, None)
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
        run = entry.prepare(arguments, context, call_id)
        entry.invocations += 1
        try:
            with anyio.move_on_after(entry.timeout) as scope:
                result = await entry.run(run, in_thread=self.run_sync_in_thread)
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

    async def _gate(self, call: ToolCallPart, approve: Approver | None) -> ToolResult | None:
        """``None`` when the call may run; else its error result (bad arguments, denied)."""
        refused = refusal(self._entries, call)
        if refused is not None:
            return refused
        entry = self._entries[call.name]
        return await gate(entry.spec, entry.approval, entry.server, call, approve or self.approve)

    async def _run_call(self, call: ToolCallPart, context: Any) -> ToolResult:
        try:
            value = await self.acall(call.name, call.arguments, context=context, call_id=call.id)
        except Exception as exc:  # every tool failure is reported to the model
            return result_message(call_id=call.id, name=call.name, exception=exc)
        return result_message(call_id=call.id, name=call.name, value=value)

    async def execute(
        self, call: ToolCallPart, *, context: Any = None, approve: Approver | None = None
    ) -> ToolResult:
        """Run one model tool call; failures become ``is_error`` results, never exceptions.
        A call that needs approval asks ``approve`` (default: the registry's ``approve``)."""
        return await self._gate(call, approve) or await self._run_call(call, context)

    async def execute_all(
        self,
        calls: Sequence[ToolCallPart],
        *,
        context: Any = None,
        approve: Approver | None = None,
        telemetry: Telemetry | None = None,
        max_parallel_tools: int | None = INHERIT,
        max_tool_calls: int | None = INHERIT,
    ) -> list[ToolResult]:
        """Run one turn's calls: approvals asked one by one in call order, then the calls
        concurrently, at most ``max_parallel_tools`` at once; calls past ``max_tool_calls``
        get an error result (not given: the registry's bounds; ``llmbridge.tools.batch``).
        Results come back in the order of ``calls``. ``telemetry``: an ``execute_tool`` span
        per run."""
        if telemetry is not None:  # on: OpenTelemetry loads with the first call it traces
            from ..telemetry.otel import traced_tool_call

        async def gated(call: ToolCallPart) -> ToolResult | None:
            return await self._gate(call, approve)

        async def run(call: ToolCallPart) -> ToolResult:
            running = self._run_call(call, context)
            return await (
                running if telemetry is None else traced_tool_call(telemetry, call, running)
            )

        return await run_batch(
            calls,
            gate=gated,
            run=run,
            max_parallel=bound(max_parallel_tools, self.max_parallel_tools, "max_parallel_tools"),
            max_calls=bound(max_tool_calls, self.max_tool_calls, "max_tool_calls"),
        )


def _unknown(kind: str, names: set[str], known: set[str], where: str) -> str:  # for subset
    named = f"{kind} named {min(names)!r}" if len(names) == 1 else f"{kind}s named {sorted(names)}"
    return f"no {named} {where} ({kind}s: {sorted(known)})"

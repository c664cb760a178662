"""``@llmbridge.tool``: turn a function into a tool, keeping it callable as before.

Rules: ``@tool`` and ``@tool(name=..., description=..., strict=..., approval=...)`` both work. The result is
a ``Tool``: calling it calls the function unchanged (sync stays sync, async returns its
coroutine); ``.tool_spec`` is the ``ToolSpec`` built once, at decoration time, so signature
mistakes (a misplaced ``ToolContext``, ``*args``) fail at import, not at the first call.
``approval`` (``"always"``, ``"never"`` or a rule on the arguments, see
``llmbridge.tools.approval``) is kept as ``.approval`` for ``ToolRegistry.register``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar, overload

from ..tool_spec import ToolSpec
from .approval import ApprovalRule, check_rule

__all__ = ["Tool", "tool", "tool_spec_of"]

P = ParamSpec("P")
R = TypeVar("R")


class Tool(Generic[P, R]):
    """A function with its ``ToolSpec`` attached (what ``@tool`` returns)."""

    def __init__(
        self, fn: Callable[P, R], spec: ToolSpec, *, approval: ApprovalRule | None = None
    ) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.tool_spec = spec
        self.approval = check_rule(approval, where=f"tool {spec.name!r}")
        """Whether the model's calls need the app's approval (``None``: never)."""

    @property
    def name(self) -> str:
        return self.tool_spec.name

    @property
    def description(self) -> str:
        return self.tool_spec.description

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.tool_spec.name!r})"


@overload
def tool(fn: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    approval: ApprovalRule | None = None,
    defer_loading: bool = False,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    fn: Callable[P, R] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    approval: ApprovalRule | None = None,
    defer_loading: bool = False,
) -> Tool[P, R] | Callable[[Callable[P, R]], Tool[P, R]]:
    """Decorate a function as a tool: ``@tool`` or ``@tool(name="...")``
    (``defer_loading=True``: found by a tool search, ``llmbridge.ToolSearch``)."""

    def wrap(f: Callable[P, R]) -> Tool[P, R]:
        spec = ToolSpec.from_function(
            f, name=name, description=description, strict=strict, defer_loading=defer_loading
        )
        return Tool(f, spec, approval=approval)

    return wrap(fn) if fn is not None else wrap


def tool_spec_of(obj: Any) -> ToolSpec | None:
    """The ``ToolSpec`` an object carries (a spec itself, a ``Tool``, a tool-like object)."""
    if isinstance(obj, ToolSpec):
        return obj
    spec = getattr(obj, "tool_spec", None)
    return spec if isinstance(spec, ToolSpec) else None

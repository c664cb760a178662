"""``ToolContext[T]``: the app's own object, handed to a tool through a hidden first parameter.

Rules: a tool function may declare ``ctx: ToolContext[MyDeps]`` as its *first* parameter.
That parameter is left out of the JSON schema the model sees and is filled at call time with
the context object the app passed to ``ToolRegistry.call/acall`` or to the tool loop
(``ctx.context``). Anywhere but first it is a ``TypeError`` when the tool is built.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["ToolContext", "is_tool_context"]

T = TypeVar("T")


@dataclass(slots=True)
class ToolContext(Generic[T]):
    """What a context-taking tool receives as its first argument."""

    context: T
    """The app's object, exactly as passed to the registry call or the tool loop."""
    tool_name: str = ""
    """The name of the tool being called."""
    tool_call_id: str | None = None
    """The id of the model's tool call, when the call comes from a model turn."""


def is_tool_context(annotation: Any) -> bool:
    """True for ``ToolContext``, ``ToolContext[T]`` and ``Annotated[ToolContext[T], ...]``."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation is ToolContext or typing.get_origin(annotation) is ToolContext

"""A structured answer that did not validate: the same model asked again with the validation
error (``output_retries=N``), then the next model of a chain (``fallback_on``).

Rules (``docs/structured-output.md``, "When the answer does not validate"):

* ``output_retries=N`` (``complete()`` and ``run()``, with a ``response_format``; default 0):
  on a ``StructuredOutputError`` the model that answered is sent the conversation, its invalid
  answer and a user message saying what was wrong (``retry_message``), up to N times, as
  pydantic-ai does. Each retry is one more request; the answers and errors pile up in the
  conversation (``run()``: in ``loop.messages``).
* Once its retries are spent, a chain whose ``fallback_on`` names the error moves to the next
  model (``model_chain.later_models``), which starts from the conversation as it was before
  the first invalid answer and has N retries of its own. Otherwise the last error is raised,
  saying how many retries it had.
* A retry of a model in a chain is a chain that starts at that model: if its request fails
  (429, a broken stream) the next models still get their turn, as for the first answer.
* ``output_retries`` without a ``response_format``, or not a whole number >= 0, is a
  ``UsageError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..errors import StructuredOutputError, UsageError
from ..messages import ChatMessage
from ..model_refs import is_chain
from ..request import ResponseFormat
from ..response import ChatResponse
from ..stream.deadline import Deadline
from ..structured import parse_response
from .call_options import UNSET
from .event_stream import EventStream
from .model_chain import later_models

__all__ = ["OutputTries", "complete_turns", "pop_output_retries", "retry_message"]

_MAX_ERRORS = 8
"""Validation errors quoted to the model (the rest are counted)."""


def pop_output_retries(given: dict[str, Any], *, structured: bool) -> int:
    """``output_retries`` taken out of a call's options (checked; 0 when absent)."""
    retries = given.pop("output_retries", 0)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise UsageError(f"output_retries takes a whole number >= 0, not {retries!r}")
    if retries and not structured:
        raise UsageError(
            "output_retries= retries invalid structured answers: it needs a response_format="
        )
    return retries


def retry_message(error: StructuredOutputError) -> ChatMessage:
    """The user message a model gets after its answer did not validate."""
    lines = [f"Your answer could not be used: {error.message}."]
    for problem in error.errors[:_MAX_ERRORS]:
        where = ".".join(str(p) for p in problem.get("loc", ())) or "(the value)"
        lines.append(f"- {where}: {problem.get('msg', problem.get('type', 'invalid'))}")
    if len(error.errors) > _MAX_ERRORS:
        lines.append(f"- ... and {len(error.errors) - _MAX_ERRORS} more")
    lines.append("Answer again with only a value in the requested format, corrected.")
    return ChatMessage.user("\n".join(lines))


class OutputTries:
    """Which model answers next, and with what, as answers fail to validate (module rules)."""

    def __init__(self, models: Any, retries: int, fallback_on: Any) -> None:
        chain = isinstance(models, list | tuple) and is_chain(models)
        self.models = list(models) if chain else models
        self.retries = retries
        self.left = retries
        self.fallback_on = fallback_on
        self._start = 0  # the chain's models from here on are the target

    @property
    def target(self) -> Any:
        """The model (or the rest of the chain) the next request goes to."""
        return self.models[self._start :] if isinstance(self.models, list) else self.models

    def after(
        self, answered: int, response: ChatResponse[Any], error: StructuredOutputError
    ) -> list[ChatMessage] | None:
        """The messages that replace the invalid answer in the conversation before the next
        request (its answer and the retry message: the same model again; none: the next
        model), or ``None``: raise ``error`` (its message then counts the retries)."""
        if self.left > 0:
            self.left -= 1
            self._start += answered  # the model that answered, and the chain after it
            return [response.message, retry_message(error)]
        target = self.target
        rest = later_models(target, answered, error, self.fallback_on)
        if rest is None:
            if self.retries:
                error.message = f"{error.message} (after {self.retries} output_retries)"
                error.args = (error.message, *error.args[1:])
            return None
        self._start += answered + 1
        self.left = self.retries
        return []


class _Opens(Protocol):
    def _open(
        self, model: Any, messages: Any, rescue: bool | None, options: Mapping[str, Any]
    ) -> EventStream: ...
    def _deadline(self, timeout: Any) -> Deadline | None: ...


async def complete_turns(
    client: _Opens,
    model: Any,
    messages: Sequence[ChatMessage],
    fmt: ResponseFormat | None,
    rescue: bool | None,
    given: dict[str, Any],
) -> ChatResponse[Any]:
    """``Client.complete``: one turn folded, its structured answer validated, asked again or
    of the next model as the module rules say."""
    retries = pop_output_retries(given, structured=fmt is not None)
    tries = OutputTries(model, retries, given.get("fallback_on"))
    if fmt is not None and (is_chain(model) or tries.retries):  # one budget for every request
        given["timeout"] = client._deadline(given.get("timeout", UNSET))
    extra: list[ChatMessage] = []
    while True:
        options = {**given, "response_format": fmt}
        stream = client._open(tries.target, [*messages, *extra], rescue, options)
        async with stream:
            async for _ in stream:
                pass  # the stream's record folds them: the one fold (issue 42)
        response = stream.response()
        if fmt is None:
            return response
        try:
            response.parsed = parse_response(response, fmt, provider=stream.provider.name)
            return response
        except StructuredOutputError as exc:
            more = tries.after(stream.state.link, response, exc)
            if more is None:
                raise
            extra = [*extra, *more] if more else []  # the next model starts afresh

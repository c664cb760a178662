"""MCP elicitation: a server asking the user for input in the middle of a call.

A server sends ``elicitation/create`` in one of two modes: **form** (a message and a requested
JSON schema: a flat object of strings, numbers, integers, booleans, enums and multi-select
arrays) or **url** (a message and a URL the user should open, e.g. to sign in somewhere; what
happens there never passes through the client). The SDK's ``elicitation_callback`` built here
hands it to the app's ``elicit=`` callback as an ``ElicitationRequest``.

Rules:

* The callback is sync or async, like ``approve=`` (a sync one runs in a worker thread, so it
  may block on ``input()``; a cancelled call does not wait for it). It returns an
  ``ElicitationAnswer``, or for short: a dict (accept, with that content; form mode), ``True``
  (accept; url mode: the user opened the URL), ``False`` or ``None`` (decline).
* Form content is validated against the requested schema *before* it goes back
  (``validate_content``: types coerced as pydantic's lax mode does, ``"3"`` → ``3``; enums,
  bounds, lengths, ``required``, the ``email`` / ``uri`` / ``date`` / ``date-time`` formats;
  unknown fields refused). Content that does not validate is never sent: the server gets a
  **decline**, and the ``llmbridge.mcp`` logger a warning naming the fields at fault (not
  their values). Apps that want to re-ask call ``validate_content`` themselves first (the CLI
  does), and get an ``ElicitationContentError`` listing the problems.
* The tool call that led to the request keeps its ``timeout`` while the user answers.
* No callback (``elicit=None``, the default): elicitation is offered and every request is
  declined at once (logged at INFO on ``llmbridge.mcp``): the server hears "declined" and
  goes on, never left hanging. ``elicit=False``: not offered at all, so servers leave out
  what needs it (server-everything lists two tools fewer: some 400 tokens the model does not
  spend on tools that could only be declined); a server that asks anyway is refused at once by the SDK.
  A callback that raises, or returns something else than the shapes above, is logged and the
  server gets a **cancel**.
"""

from __future__ import annotations

import datetime
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

import anyio.to_thread
from pydantic import ValidationError

from ...errors import LLMBridgeError
from ...specs.argument_errors import format_location
from ...tool_spec import ToolSpec
from ..content import field_of

__all__ = [
    "ElicitOption",
    "ElicitationAnswer",
    "ElicitationContentError",
    "ElicitationRequest",
    "Elicitor",
    "elicitation_callback",
    "validate_content",
]

_log = logging.getLogger("llmbridge.mcp")


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """What a server asks the user (``elicit=`` receives it)."""

    mode: Literal["form", "url"]
    message: str
    """The server's explanation, to show the user."""
    server: str | None = None
    """The MCP server asking (its config name; ``None`` when the connection has none)."""
    schema: Mapping[str, Any] = field(default_factory=dict)
    """Form mode: the requested schema (``properties``, ``required``)."""
    url: str | None = None
    """URL mode: where the user should go."""
    elicitation_id: str | None = None
    """URL mode: the server's id of this interaction."""

    @property
    def fields(self) -> dict[str, Mapping[str, Any]]:
        """Form mode: each requested field's schema, in the server's order."""
        return dict(self.schema.get("properties") or {})

    @property
    def required(self) -> list[str]:
        return [str(name) for name in self.schema.get("required") or []]


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    """The user's answer: ``accept`` (with ``content`` in form mode), ``decline`` (no) or
    ``cancel`` (dismissed without choosing)."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None


Elicitor: TypeAlias = Callable[
    [ElicitationRequest],
    "ElicitationAnswer | Mapping[str, Any] | bool"
    " | Awaitable[ElicitationAnswer | Mapping[str, Any] | bool | None] | None",
]
ElicitOption: TypeAlias = "Elicitor | Literal[False] | None"
"""``elicit=``: the app's callback, ``None`` (offered, every request declined) or ``False``
(not offered)."""
"""The app's ``elicit=`` callback, sync or async (see module rules for what it returns)."""


class ElicitationContentError(LLMBridgeError):
    """Form content that does not match the requested schema; ``problems`` has one line per
    field at fault (``field: what is wrong``)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the answer does not match the requested form: " + "; ".join(problems))
        self.problems = problems


def _format_ok(fmt: str, value: str) -> bool:
    try:
        if fmt == "date":
            datetime.date.fromisoformat(value)
        elif fmt == "date-time":
            datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    if fmt == "email":
        local, _, domain = value.partition("@")
        return bool(local) and "." in domain and " " not in value
    if fmt == "uri":
        parts = urlsplit(value)
        return bool(parts.scheme) and bool(parts.netloc or parts.path)
    return True


def validate_content(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` checked against a requested form schema: the validated values (coerced to
    the field types), or ``ElicitationContentError``."""
    if not isinstance(content, Mapping):
        raise ElicitationContentError([f"(answer): expected an object, got {type(content)}"])
    properties = dict(schema.get("properties") or {})
    problems = [f"{key}: not a field of this form" for key in content if key not in properties]
    try:
        model = ToolSpec.from_json_schema("elicitation", "", dict(schema)).validation_model
    except LLMBridgeError as exc:  # a schema nothing can satisfy: nothing is sent
        raise ElicitationContentError(
            [f"(form): the server's schema cannot be used: {exc}"]
        ) from exc
    values: dict[str, Any] = {}
    try:
        instance = model.model_validate(dict(content))
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            problems.append(f"{format_location(tuple(err['loc']))}: {err['msg']}")
    else:
        dumped = instance.model_dump(by_alias=True, exclude_unset=True)
        values = {k: v for k, v in dumped.items() if k in properties and k in content}
    for key, value in values.items():
        fmt = properties[key].get("format") if isinstance(properties[key], Mapping) else None
        if isinstance(value, str) and isinstance(fmt, str) and not _format_ok(fmt, value):
            problems.append(f"{key}: not a valid {fmt}")
    if problems:
        raise ElicitationContentError(problems)
    return values


def request_of(params: Any, server: str | None) -> ElicitationRequest:
    """The SDK's ``ElicitRequestParams`` (either mode) as an ``ElicitationRequest``."""
    mode = field_of(params, "mode") or "form"
    if mode == "url":
        return ElicitationRequest(
            "url",
            str(field_of(params, "message") or ""),
            server,
            url=str(field_of(params, "url")),
            elicitation_id=field_of(params, "elicitationId", "elicitation_id"),
        )
    schema = field_of(params, "requestedSchema", "requested_schema") or {}
    return ElicitationRequest("form", str(field_of(params, "message") or ""), server, schema)


def answer_of(reply: Any) -> ElicitationAnswer:
    """What a callback returned, as an ``ElicitationAnswer`` (``TypeError`` if none)."""
    if isinstance(reply, ElicitationAnswer):
        if reply.action not in ("accept", "decline", "cancel"):
            raise TypeError(
                f"an ElicitationAnswer's action is accept, decline or cancel, got {reply.action!r}"
            )
        return reply
    if reply is None or reply is False:
        return ElicitationAnswer("decline")
    if reply is True:
        return ElicitationAnswer("accept")
    if isinstance(reply, Mapping):
        return ElicitationAnswer("accept", dict(reply))
    raise TypeError(
        "elicit= must return an ElicitationAnswer, a dict (accept with it), True (accept), "
        f"False or None (decline), got {type(reply).__name__}"
    )


async def ask(elicit: Elicitor, request: ElicitationRequest) -> ElicitationAnswer:
    """Ask the app (sync callbacks in a worker thread, abandoned on cancellation)."""
    if inspect.iscoroutinefunction(elicit) or inspect.iscoroutinefunction(
        getattr(elicit, "__call__", None)  # noqa: B004 - an object with an async __call__
    ):
        reply: Any = await elicit(request)  # type: ignore[misc]
    else:
        reply = await anyio.to_thread.run_sync(elicit, request, abandon_on_cancel=True)
        if inspect.isawaitable(reply):
            reply = await reply
    return answer_of(reply)


async def checked_answer(elicit: Elicitor, request: ElicitationRequest) -> ElicitationAnswer:
    """The app's answer, made safe to send (see module rules: invalid → decline, a failing
    callback → cancel)."""
    who = f"MCP server {request.server!r}" if request.server else "an MCP server"
    try:
        answer = await ask(elicit, request)
    except Exception as exc:
        _log.error("elicit= failed on a request of %s: %s: %s", who, type(exc).__name__, exc)
        return ElicitationAnswer("cancel")
    if answer.action != "accept":
        return ElicitationAnswer(answer.action)
    if request.mode == "url":
        return ElicitationAnswer("accept")  # the interaction happens at the URL, not here
    try:
        return ElicitationAnswer("accept", validate_content(request.schema, answer.content or {}))
    except ElicitationContentError as exc:
        _log.warning(
            "the answer to %s's form did not match its schema, sent as a decline: %s",
            who,
            "; ".join(exc.problems),
        )
        return ElicitationAnswer("decline")


def _decline(request: ElicitationRequest) -> ElicitationAnswer:
    """What ``elicit=None`` answers: a decline, logged."""
    who = f"MCP server {request.server!r}" if request.server else "An MCP server"
    _log.info("%s asked the user (%s mode) and no elicit= was given: declined", who, request.mode)
    return ElicitationAnswer("decline")


def elicitation_callback(
    elicit: Elicitor | None, *, server: str | None = None
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK's ``elicitation_callback`` asking ``elicit`` (for ``server``; ``None``: every
    request declined)."""
    import mcp.types as types

    async def answer(context: Any, params: Any) -> Any:
        request = request_of(params, server)
        if elicit is None:
            reply = _decline(request)
        else:
            reply = await checked_answer(elicit, request)
        content = dict(reply.content) if reply.content is not None else None
        return types.ElicitResult(action=reply.action, content=content)

    return answer

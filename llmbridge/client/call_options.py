"""The typed options of ``stream`` / ``complete`` / ``run`` / ``count_tokens`` (and
``SyncClient``'s twins): one ``TypedDict`` per group, so ``max_token=5`` or
``temperature="hot"`` is an editor and type-checker error, and completion lists them.

Rules:

* The methods take ``**options: Unpack[CallOptions]`` (``RunOptions`` for ``run``,
  ``CountOptions`` for ``count_tokens``). ``tools``, ``response_format`` and
  ``rescue_tool_calls`` are explicit keyword parameters of the methods (``response_format``
  picks the result's type through overloads, so it cannot live in a ``TypedDict``).
* These are types only: the runtime checks stay where they are (``UsageError`` for an unknown
  or invalid option: ``Client.build_request``, ``llmbridge.call_settings``, the chain's own).
  Nothing here runs per event.
* ``RequestOptions`` are the request's own settings (``Client.build_request``'s keywords);
  ``tests/test_typed_options.py`` checks the groups against it, ``CALL_OPTIONS`` and
  ``CHAIN_OPTIONS``, so a new setting cannot be left untyped.
* ``Unpack`` comes from ``typing_extensions``: it is in ``typing`` only from Python 3.11, and
  ``typing_extensions`` is already installed with pydantic (a runtime dependency that requires
  it), so importing it adds nothing to install.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from ..compaction import Compaction
from ..messages import ChatMessage
from ..request import FormatMode, ReasoningConfig, ResponseFormat, ToolChoice, ToolMode
from ..stream import RetryPolicy
from .model_chain import FallbackOn

if TYPE_CHECKING:
    from ..tools.registry import ToolRegistry

__all__ = [
    "UNSET",
    "CallOptions",
    "ChainOptions",
    "CountOptions",
    "FormatArg",
    "HttpOptions",
    "Messages",
    "RequestOptions",
    "RunOptions",
    "Tools",
]

UNSET: Any = object()
"""An option not given (``timeout``): the client's default applies."""

Messages: TypeAlias = "str | Sequence[ChatMessage | Mapping[str, object]]"
"""What ``messages`` takes: a plain string (one user message), or a list of ``ChatMessage``
and OpenAI-shaped dicts (``{"role": "user", "content": "..."}``)."""

Tools: TypeAlias = "ToolRegistry | Sequence[object]"
"""What ``tools=`` takes: a ``ToolRegistry``, or ``ToolSpec``s, ``@tool`` functions, plain
functions, dicts, provider-run tools (``llmbridge.hosted``) and a ``CachePoint``."""

FormatArg: TypeAlias = "ResponseFormat | Mapping[str, object] | str"
"""A ``response_format`` that is not a type: a ``ResponseFormat``, a JSON schema dict,
``{"type": "json_object"}`` or ``"json"`` (any JSON object); ``parsed`` is then ``Any`` (a
JSON value). Without a ``response_format``, ``parsed`` is ``None``: ``ChatResponse[None]``."""


class RequestOptions(TypedDict, total=False):
    """The request's settings (sent in the body, each provider mapping them)."""

    temperature: float | None
    top_p: float | None
    top_k: int | None
    max_tokens: int | None
    stop: str | list[str] | None
    seed: int | None
    presence_penalty: float | None
    frequency_penalty: float | None
    tool_choice: ToolChoice | str | None
    """``"auto"``, ``"none"``, ``"required"``, a tool's name, or an ``lb.ToolChoice``."""
    parallel_tool_calls: bool | None
    tool_mode: ToolMode
    format_mode: FormatMode
    reasoning: ReasoningConfig | None
    background: bool
    """Run the response in the background on the server (OpenAI Responses and its presets):
    a stream that breaks is resumed; ``Client.resume`` continues it from elsewhere
    (docs/long-running.md). Other providers: ``ConfigurationError`` before sending."""
    stream: bool | None
    """``False``: send the provider's whole (non-streaming) request and decode its answer
    into the same events and ``ChatResponse`` (docs/whole-responses.md); ``None`` / ``True``:
    streamed. A provider without a whole mode: ``ConfigurationError`` before sending."""
    compaction: Compaction | bool | None
    """Server-side compaction (``lb.Compaction(trigger_tokens=...)``, or ``True`` for the
    provider's defaults) where the provider has it; elsewhere a ``ConfigurationError``."""
    extra: Mapping[str, object] | None
    """Provider-specific body fields, sent as given."""


class HttpOptions(TypedDict, total=False):
    """Per-call HTTP settings (``llmbridge.call_settings``; never in the body)."""

    headers: Mapping[str, str]
    retry: RetryPolicy | None
    max_attempts: int | None
    timeout: float | None
    """A total deadline for this call, in seconds."""
    cancel_on_close: bool
    """With ``background=True`` (or ``Client.resume``): leaving the stream before its end
    (``break``, ``aclose()``, cancellation) cancels the response on the server."""


class ChainOptions(TypedDict, total=False):
    """Options of a fallback chain itself (``llmbridge.client.model_chain``)."""

    restart: bool
    fallback_on: FallbackOn
    model_timeout: float | None
    """Seconds each model of the chain may take (within the call's ``timeout``): past them
    the model has failed (a ``TimeoutError`` naming it) and the next one answers."""


class CountOptions(RequestOptions, HttpOptions, total=False):
    """``count_tokens``'s options (one model: no chain options)."""


class RunOptions(RequestOptions, HttpOptions, ChainOptions, total=False):
    """``run``'s options (``tools`` and ``response_format`` are its own parameters)."""


class CallOptions(RunOptions, total=False):
    """``stream``'s and ``complete``'s options."""

    tools: Tools | None

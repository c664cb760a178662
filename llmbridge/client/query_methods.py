"""``Client.count_tokens`` and ``Client.list_models``: the calls that ask a provider about a
request or itself rather than stream a turn.

A base class of ``Client`` (``llmbridge.client.async_client``), split from it by
responsibility; it uses only what the client declares below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..call_settings import CallSettings, pop_call_settings
from ..model_info import ModelInfo
from ..model_refs import ModelRef
from ..providers.base import Provider
from . import queries
from .call_options import UNSET, FormatArg, Messages, Tools
from .request_options import build_request, check_request_options

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..stream.call import CallConfig
    from ..stream.deadline import Deadline
    from .call_options import CountOptions

__all__ = ["QueryMethods"]


class QueryMethods:
    """``count_tokens`` and ``list_models`` of ``Client``."""

    if TYPE_CHECKING:

        def _check_open(self) -> None: ...
        def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
        def provider(self, name: str) -> Provider: ...
        def _deadline(self, timeout: Any) -> Deadline | None: ...
        def _config(self, call: CallSettings | None, deadline: Deadline | None) -> CallConfig: ...

    async def count_tokens(
        self,
        model: ModelRef,
        messages: Messages,
        *,
        tools: Tools | None = None,
        response_format: FormatArg | type[Any] | None = None,
        **options: Unpack[CountOptions],
    ) -> int:
        """Input tokens of the request ``stream`` would send (tools, system prompt and, in
        prompt mode, the fallback's instructions included), counted by the provider's own
        endpoint; a provider without one is a ``ConfigurationError`` that names it.
        ``timeout``: the call's total time, its retries included (default: the client's)."""
        self._check_open()
        given: dict[str, Any] = {**options, "tools": tools, "response_format": response_format}
        call = pop_call_settings(given)
        deadline = self._deadline(given.pop("timeout", UNSET))
        check_request_options(given)
        provider, model_name = self.resolve(model)
        request = build_request(model_name, messages, **given)
        config = self._config(call, deadline)
        return await queries.count_tokens(provider=provider, request=request, config=config)

    async def list_models(self, provider: str | Provider) -> list[ModelInfo]:
        """The models ``provider`` (a name such as ``"openai"`` or ``"llamacpp"``, or a provider
        object) lists, every page; a provider that cannot list is a ``ConfigurationError``.
        The client's ``timeout`` bounds every page and retry: a ``Retry-After`` past it is a
        ``TimeoutError`` at once, as for a stream."""
        self._check_open()
        target = self.provider(provider) if isinstance(provider, str) else provider
        config = self._config(None, self._deadline(UNSET))
        return await queries.list_models(provider=target, config=config)

"""``Client.count_tokens`` and ``Client.list_models``: the calls that ask a provider about a
request or itself rather than stream a turn.

A base class of ``Client`` (``llmbridge.client.async_client``), split from it by
responsibility; it uses only what the client declares below.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from ..call_settings import pop_call_settings
from ..model_info import ModelInfo
from ..model_refs import ModelRef
from ..providers.base import Provider
from ..stream.deadline import within
from . import queries
from .call_options import UNSET, FormatArg, Messages, Tools
from .request_options import build_request, check_options

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..stream import RetryPolicy
    from ..stream.clients import HttpPool
    from ..stream.deadline import Deadline
    from .call_options import CountOptions

__all__ = ["QueryMethods"]

T = TypeVar("T")


class QueryMethods:
    """``count_tokens`` and ``list_models`` of ``Client``."""

    if TYPE_CHECKING:
        _http: HttpPool
        _timeout: Any
        retry: RetryPolicy

        def _check_open(self) -> None: ...
        def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
        def provider(self, name: str) -> Provider: ...
        def _deadline(self, timeout: Any) -> Deadline | None: ...

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
        endpoint; a provider without one is a ``ConfigurationError`` that names it."""
        self._check_open()
        given: dict[str, Any] = {**options, "tools": tools, "response_format": response_format}
        call = pop_call_settings(given)
        check_options(given)
        provider, model_name = self.resolve(model)
        request = build_request(model_name, messages, **given)
        counting = queries.count_tokens(
            http=self._http,
            provider=provider,
            request=request,
            retry=self.retry if call is None else call.policy(self.retry),
            timeout=self._timeout,
        )
        return await self._in_time(counting, provider, "counting tokens")

    async def list_models(self, provider: str | Provider) -> list[ModelInfo]:
        """The models ``provider`` (a name such as ``"openai"`` or ``"llamacpp"``, or a provider
        object) lists, every page; a provider that cannot list is a ``ConfigurationError``."""
        self._check_open()
        target = self.provider(provider) if isinstance(provider, str) else provider
        listing = queries.list_models(
            http=self._http, provider=target, retry=self.retry, timeout=self._timeout
        )
        return await self._in_time(listing, target, "listing models")

    async def _in_time(self, work: Awaitable[T], provider: Provider, during: str) -> T:
        """``await work`` within the client's default total ``timeout``, if it has one."""
        deadline = self._deadline(UNSET)
        if deadline is None:
            return await work
        return await within(deadline, work, provider=provider.name, during=during)

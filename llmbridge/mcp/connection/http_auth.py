"""What the HTTP transports of MCP (``connect_http``, ``connect_sse``) take as ``auth=``.

Rules: an ``MCPOAuth`` becomes the ``mcp`` package's OAuth provider for the server's URL
(``llmbridge.mcp.oauth.flow``); an ``httpx2.Auth`` (what the package speaks HTTP with) is used
as it is; an ``httpx.Auth`` (every auth of ``llmbridge.auth``) runs on a copy of each request
whose headers are carried over (and on the requests it makes itself, such as a token
refresh). An OAuth provider's secrets join the connection's scrubbing (its errors).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import httpx

from ...errors import ConfigurationError
from ..errors import _Boundary
from ..oauth.flow import MCPOAuth

__all__ = ["http_auth"]


def http_auth(
    auth: Any, url: str, boundary: _Boundary | None = None, *, name: str | None = None
) -> Any:
    """``auth`` as the ``httpx2.Auth`` (``httpx.Auth`` for mcp 1.x) the SDK's HTTP client
    takes; an OAuth provider's secrets join ``boundary``'s scrubbing."""
    if auth is None:
        return None
    if isinstance(auth, MCPOAuth):
        auth = auth.provider(url, name=name)
    sdk_http = sys.modules.get("httpx2")
    if sdk_http is not None and isinstance(auth, sdk_http.Auth):
        extra: Callable[[str], str] | None = getattr(auth, "scrub", None)
        if boundary is not None and extra is not None:
            boundary.scrub = _then(boundary.scrub, extra)
        return auth
    if isinstance(auth, httpx.Auth):
        return auth if sdk_http is None else _from_httpx(auth)
    raise ConfigurationError(
        f"auth= takes an MCPOAuth, an httpx2.Auth or an httpx.Auth, not {type(auth).__name__}"
    )


def _then(first: Callable[[str], str], second: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: second(first(text))


def _from_httpx(auth: httpx.Auth) -> Any:
    """An ``httpx.Auth`` run inside the SDK's ``httpx2`` client."""
    import httpx2

    class FromHttpx(httpx2.Auth):
        requires_response_body = auth.requires_response_body

        def __repr__(self) -> str:
            return f"<{type(auth).__name__} for MCP>"

        async def async_auth_flow(self, request: Any) -> Any:
            copy = httpx.Request(
                request.method, str(request.url), headers=list(request.headers.raw)
            )
            flow = auth.async_auth_flow(copy)
            try:
                sent = await flow.__anext__()
                while True:
                    if sent is copy:  # the request itself, signed: its body stays as it was
                        request.headers.update(dict(copy.headers))
                        outgoing = request
                    else:  # one the auth makes (a token request)
                        body = await sent.aread()
                        outgoing = httpx2.Request(
                            sent.method, str(sent.url), headers=list(sent.headers.raw), content=body
                        )
                    response = yield outgoing
                    content = await response.aread() if self.requires_response_body else b""
                    back = httpx.Response(
                        response.status_code,
                        headers=list(response.headers.raw),
                        content=content,
                        request=sent,
                    )
                    sent = await flow.asend(back)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    return FromHttpx()

"""A remote MCP server for the remote tests: ``python mcp_remote_server.py MODE http PORT``.

Written with the ``mcp`` package's ``MCPServer`` and its own auth pieces (``mcp.server.auth``).
MODE is ``oauth`` (streamable HTTP at ``/mcp``, protected by an in-memory OAuth authorization
server on the same origin: dynamic client registration, PKCE, authorization codes the
``/authorize`` endpoint grants at once, refresh tokens; access tokens live ``EXPIRES`` seconds,
env, default 3600, on the clock of the ``CLOCK`` file if set: see ``now``), ``oauth-sse`` (the same over the legacy SSE transport at ``/sse``), ``sse``
(SSE, no auth), ``sse-events`` (SSE at ``/events``), ``bearer`` (streamable HTTP taking only ``Authorization: Bearer s3cr3t-static``)
or ``oauth-echo`` (``oauth`` whose token endpoint refuses every request, echoing its body in
the error). Tools: ``add``, ``who`` (the client id the call was authorized for), ``stats``
(authorizations, code exchanges, refreshes so far) and ``slow``.
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import os
import secrets
import sys
import time
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

MODE, PORT = sys.argv[1], int(sys.argv[3])
EXPIRES = int(os.environ.get("EXPIRES", "3600"))
CLOCK = os.environ.get("CLOCK")
BOOT = time.time()


def now() -> float:
    """The time tokens expire by: with ``CLOCK`` (a file holding seconds) the boot time plus
    those seconds, so only the test moves it on; else the real time."""
    if CLOCK is None:
        return time.time()
    with open(CLOCK) as file:
        return BOOT + float(file.read() or 0)


BASE = f"http://127.0.0.1:{PORT}"
STATS = {"authorize": 0, "code": 0, "refresh": 0, "register": 0}


class Provider:
    """An OAuth authorization server in memory, granting every authorization at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.expiry: dict[str, float] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        STATS["register"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        STATS["authorize"] += 1
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["mcp"], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )  # fmt: skip
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, resource=resource
        )
        self.expiry[access] = now() + EXPIRES  # (AccessToken.expires_at: whole seconds)
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access, expires_in=EXPIRES, refresh_token=refresh, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        STATS["code"] += 1
        del self.codes[authorization_code.code]
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        STATS["refresh"] += 1
        del self.refresh[refresh_token.token]  # rotated
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        if self.expiry.get(token, 0) < now():
            return None
        return self.access[token]

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        raise TokenError(error="unsupported_grant_type")


class StaticTokens:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token == "s3cr3t-static":
            return AccessToken(token=token, client_id="static", scopes=["mcp"])
        return None


def build() -> MCPServer[Any]:
    kwargs: dict[str, Any] = {}
    if MODE.startswith("oauth"):
        kwargs["auth_server_provider"] = Provider()
    elif MODE == "bearer":
        kwargs["token_verifier"] = StaticTokens()
    if kwargs:
        path = "/sse" if MODE == "oauth-sse" else "/mcp"
        kwargs["auth"] = AuthSettings(
            issuer_url=BASE,  # type: ignore[arg-type]
            resource_server_url=f"{BASE}{path}",  # type: ignore[arg-type]
            validate_token_resource=False,
            required_scopes=["mcp"],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]
            ),
        )
    server: MCPServer[Any] = MCPServer(f"remote-{MODE}", **kwargs)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    def who() -> str:
        """The client this call was authorized for."""
        token = get_access_token()
        return token.client_id if token else "anonymous"

    @server.tool()
    def stats() -> dict[str, int]:
        """What the authorization server did so far."""
        return dict(STATS)

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await anyio.sleep(seconds)
        return "done"

    return server


def app() -> Any:
    server = build()
    if MODE in ("sse", "oauth-sse"):
        made = server.sse_app()
    elif MODE == "sse-events":  # an older server whose SSE stream is not at /sse
        made = server.sse_app(sse_path="/events")
    else:
        made = server.streamable_http_app()
    if MODE == "oauth-echo":
        inner = made

        async def echoing(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"] == "/token":
                body = await Request(scope, receive).body()
                reply = JSONResponse(
                    {"error": "invalid_grant", "error_description": f"refused: {body.decode()}"},
                    status_code=400,
                )
                await reply(scope, receive, send)
                return
            await inner(scope, receive, send)

        return echoing
    return made


def main() -> None:
    import uvicorn

    uvicorn.run(app(), host="127.0.0.1", port=PORT, log_level="warning")


if __name__ == "__main__":
    main()

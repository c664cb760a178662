"""OAuth for remote MCP servers (streamable HTTP and SSE): ``MCPOAuth``, what an app gives
``connect_http`` / ``connect_sse`` (``auth=``) or ``connect_mcp_servers`` (``oauth=``).

The flow is the ``mcp`` package's own (``mcp.client.auth.OAuthClientProvider``, an
``httpx2.Auth``): on a 401 it discovers the protected resource and authorization server
metadata, registers the client (dynamic client registration) unless one is given, sends the
user to the authorization URL with PKCE, exchanges the code for tokens, and refreshes them
when they expire. What llmbridge adds:

* **Storage the app supplies** (``MCPTokenStore``: ``llmbridge.mcp.oauth.store``),
  keyed by the server's URL, so any number of servers share one store; the absolute expiry is
  kept beside the tokens, so a later connection refreshes an expired token instead of asking
  the user again (the SDK, given stored tokens, would not know they expired).
* **One hook for the user's part**: ``authorize(url)`` (sync or async) gets the authorization
  URL, has the user approve (a browser, a device, the terminal) and returns the URL the
  browser was redirected to (or its query string, or its parameters as a dict); the code,
  state and issuer are read from it and checked by the SDK. Ready-made hooks:
  ``browser_authorize`` and ``terminal_authorize`` (``llmbridge.mcp.oauth.hooks``). An
  ``error=`` in the answer is an ``MCPAuthError``; so is a server asking for authorization
  when there is no hook. Connect and request timeouts do not run while the hook waits for the
  person.
* **One authorization per server at a time**: connections to one server (one store, one
  key) that start together with nothing stored wait for the first one's authorization and
  then use its tokens: the person is asked once (the waiting ones' timeouts pause, as for the
  person). Once tokens are stored, nothing waits.
* **No secret shows**: every access token, refresh token, client secret, authorization code
  and PKCE verifier the flow handles is scrubbed from errors (``MCPError``s of the connection,
  ``servers.failures``) and from the SDK's own OAuth log records; reprs show none.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias
from urllib.parse import parse_qs, urlsplit, urlunsplit

import anyio.lowlevel
import anyio.to_thread

from ...auth.bearer import REFRESH_MARGIN
from ...errors import ConfigurationError
from ...secrets import secret_scrubber
from ..errors import MCPError
from ..person_clock import person_waiting
from .logs import scrub_logs_of
from .store import InMemoryTokenStore, MCPTokenStore, _Storage

__all__ = ["AuthorizeHook", "MCPAuthError", "MCPOAuth"]

AuthorizeHook: TypeAlias = Callable[
    [str], "str | Mapping[str, str] | Awaitable[str] | Awaitable[Mapping[str, str]]"
]
"""Gets the authorization URL; returns the URL the browser was redirected to (or its query, or
its parameters as a dict: ``code``, ``state``, and ``iss`` when the server sent it)."""

DEFAULT_REDIRECT_URI = "http://localhost:33418/callback"
_SECRET_FORM_FIELDS = frozenset(
    {"code", "code_verifier", "refresh_token", "client_secret", "assertion", "access_token"}
)


class MCPAuthError(MCPError):
    """A remote MCP server needs authorization that could not be had: the user refused, no
    ``authorize`` hook was given, or the OAuth flow failed (registration, token exchange)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class MCPOAuth:
    """How llmbridge authorizes with MCP servers that ask for OAuth.

    ``authorize``: the user's part (see the module rules). ``store``: where tokens and the
    registered client are kept (default: in memory). ``redirect_uri``: where the authorization
    server sends the browser back (registered with the server; your ``authorize`` hook listens
    there or asks the user to paste the address). ``scopes``: asked for (default: what the
    server says it needs). ``client_id`` / ``client_secret``: a client registered beforehand
    (otherwise the client registers itself with the server, once per store)."""

    authorize: AuthorizeHook | None = None
    store: MCPTokenStore = dataclasses.field(default_factory=InMemoryTokenStore)
    redirect_uri: str = DEFAULT_REDIRECT_URI
    scopes: Sequence[str] | None = None
    client_name: str = "llmbridge"
    client_id: str | None = None
    client_secret: str | None = dataclasses.field(default=None, repr=False)

    def provider(self, url: str, *, name: str | None = None) -> Any:
        """The SDK's ``OAuthClientProvider`` (an ``httpx2.Auth``) for the server at ``url``."""
        try:
            from mcp.shared.auth import OAuthClientMetadata
        except ImportError as exc:
            raise ConfigurationError(
                "OAuth for MCP servers needs a newer 'mcp' package: pip install -U 'mcp>=2'"
            ) from exc

        metadata = OAuthClientMetadata(
            client_name=self.client_name,
            redirect_uris=[self.redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=" ".join(self.scopes) if self.scopes else None,
        )
        storage = _Storage(self, store_key(url))
        hook = _Hook(self.authorize, name, url, storage.secrets)
        return _provider_class()(
            label=hook.label,
            server_url=url,
            client_metadata=metadata,
            storage=storage,
            redirect_handler=hook.redirect,
            callback_handler=hook.callback,
        )


def entry_oauth(entry: Any, oauth: MCPOAuth | None) -> MCPOAuth | None:
    """The OAuth an ``mcpServers`` HTTP entry uses: its ``oauth`` settings over the app's
    ``oauth=``; none when the entry says ``false``, or its ``headers`` carry an
    ``Authorization`` (a static token) and it does not ask for OAuth itself."""
    asked = entry.oauth
    static = any(k.lower() == "authorization" for k in entry.headers)
    if asked is False or (asked is None and (oauth is None or static)):
        return None
    base = oauth or MCPOAuth()
    if asked is True or asked is None:
        return base
    settings = {k: v for k, v in asked.model_dump().items() if v is not None}
    return dataclasses.replace(base, **settings)


def store_key(url: str) -> str:
    """The key a server's OAuth state has in a store: its URL without query or fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


@dataclasses.dataclass(frozen=True)
class _Label:
    """How OAuth errors name the server."""

    name: str | None
    where: str

    def error(self, what: str) -> MCPAuthError:
        label = f"{self.name!r} ({self.where})" if self.name else self.where
        error = MCPAuthError(f"MCP server {label}: {what}")
        error.server, error.where = self.name, self.where
        return error


class _Hook:
    """The SDK's redirect and callback handlers over one ``authorize`` hook (a sync hook runs
    in a worker thread, as approvers do)."""

    def __init__(
        self, authorize: AuthorizeHook | None, name: str | None, url: str, secrets: set[str]
    ) -> None:
        self.authorize = authorize
        self.label = _Label(name, store_key(url))
        self.secrets = secrets
        self.result: Any = None

    def error(self, what: str) -> MCPAuthError:
        return self.label.error(what)

    async def redirect(self, url: str) -> None:
        from mcp.shared.auth import AuthorizationCodeResult

        if self.authorize is None:
            raise self.error(
                "asks for OAuth authorization, and no authorize hook was given (pass "
                "oauth=MCPOAuth(authorize=...), or headers with a token)"
            )
        hook = self.authorize
        with person_waiting():
            if inspect.iscoroutinefunction(hook) or inspect.iscoroutinefunction(
                getattr(hook, "__call__", None)  # noqa: B004 - an object with an async __call__
            ):
                answer = await hook(url)  # type: ignore[misc]
            else:  # in a thread (input(), a blocking browser), given up on cancellation
                answer = await anyio.to_thread.run_sync(hook, url, abandon_on_cancel=True)
            if inspect.isawaitable(answer):
                answer = await answer
        if isinstance(answer, Mapping):  # the redirect's parameters, read by the app
            one = {str(k): str(v) for k, v in answer.items() if v is not None}
        elif isinstance(answer, str):
            split = urlsplit(answer.strip())
            query = parse_qs(split.query if split.scheme else answer.strip().lstrip("?"))
            one = {k: v[0] for k, v in query.items() if v}
        else:
            raise self.error(
                "the authorize hook must return the URL the browser was redirected to (or its "
                f"parameters as a dict), got {type(answer).__name__}"
            )
        self.secrets.update(v for k, v in one.items() if k == "code")
        if "error" in one:
            detail = one.get("error_description", "")
            raise self.error(
                f"authorization was refused: {one['error']}" + (f" ({detail})" if detail else "")
            )
        if not one.get("code"):
            raise self.error("the URL the authorize hook returned has no authorization code")
        self.result = AuthorizationCodeResult(
            code=one["code"], state=one.get("state"), iss=one.get("iss")
        )

    async def callback(self) -> Any:
        result, self.result = self.result, None
        return result


@functools.cache
def _provider_class() -> type[Any]:
    """``OAuthClientProvider`` with the stored expiry restored and every secret noted."""
    from mcp.client.auth import OAuthClientProvider, OAuthFlowError

    class Provider(OAuthClientProvider):
        def __init__(self, *, label: _Label, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.storage: _Storage = kwargs["storage"]
            self.label = label
            scrub_logs_of(self)
            if hasattr(self.context, "update_token_expiry"):  # refreshed before the end
                self.context.update_token_expiry = self._expire_early  # type: ignore[method-assign]

        def _expire_early(self, token: Any) -> None:
            lifetime = token.expires_in
            self.context.token_expiry_time = (
                None if lifetime is None else time.time() + int(lifetime) - _margin(int(lifetime))
            )

        def __repr__(self) -> str:
            return f"<MCP OAuth for {self.storage.key!r}>"

        @property
        def secrets(self) -> set[str]:
            return self.storage.secrets

        def scrub(self, text: str) -> str:
            return secret_scrubber(self.storage.secrets)(text)

        async def _initialize(self) -> None:  # the SDK's hook: stored tokens loaded
            await super()._initialize()
            saved = self.storage.expires_at
            if saved is not None and hasattr(self.context, "token_expiry_time"):
                lifetime = self.storage.lifetime or 0
                self.context.token_expiry_time = saved - _margin(lifetime)

        async def async_auth_flow(self, request: Any) -> Any:
            gate = None
            if not self._initialized and await self.storage.get_tokens() is None:
                gate = _first_authorization(self.storage)  # nothing stored: maybe a person
                with person_waiting():  # the wait is the person's, not the server's
                    await gate.acquire()
            flow = super().async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    self._note(outgoing)
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except OAuthFlowError as exc:  # registration, token exchange, a state mismatch
                exc.args = tuple(self.scrub(str(a)) for a in exc.args)  # shown in tracebacks
                raise self.label.error(f"OAuth failed: {type(exc).__name__}: {exc}") from exc
            finally:
                try:
                    await flow.aclose()
                finally:
                    if gate is not None:
                        gate.release()

        def _note(self, request: Any) -> None:
            """The secrets a request of the flow carries (token requests' form fields)."""
            header = request.headers.get("authorization", "")
            if " " in header:
                self.storage.secrets.add(header.partition(" ")[2])
            if (
                request.method == "POST"
                and request.url.path != urlsplit(self.context.server_url).path
            ):
                try:
                    body = bytes(request.content).decode()
                except Exception:  # streamed, or not text: no form fields
                    return
                for key, values in parse_qs(body).items():
                    if key in _SECRET_FORM_FIELDS:
                        self.storage.secrets.update(values)

    return Provider


_GATES: weakref.WeakValueDictionary[tuple[int, str, object], anyio.Lock] = (
    weakref.WeakValueDictionary()
)
"""(app store, key, event loop) -> the lock of a first authorization in progress (an entry
lives as long as a flow holds or waits for its lock)."""


def _first_authorization(storage: _Storage) -> anyio.Lock:
    """The lock the first authorization of ``storage``'s server takes (one per app store, key
    and event loop), so connections starting together ask the person once."""
    where = (id(storage.oauth.store), storage.key, anyio.lowlevel.current_token())
    gate = _GATES.get(where)
    if gate is None:
        gate = _GATES[where] = anyio.Lock()
    return gate


def _margin(lifetime: int) -> float:
    """Seconds before its expiry that an access token is refreshed: a tenth of its life, at
    most ``REFRESH_MARGIN`` (a token used to its last second may expire on the way, and the
    SDK answers a 401 with a whole new authorization, not a refresh)."""
    return min(REFRESH_MARGIN, lifetime / 10)

"""Remote MCP servers against real servers written with the ``mcp`` package
(``mcp_remote_server.py``): OAuth over streamable HTTP and over SSE (the package's own
authorization server pieces on 127.0.0.1, the full flow driven by the authorize hook), token
refresh, stored tokens reused, the legacy SSE transport, static bearer headers; on asyncio,
uvloop and trio, with nothing left running afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.auth import BearerAuth
from llmbridge.mcp import (
    FileTokenStore,
    InMemoryTokenStore,
    MCPAuthError,
    MCPOAuth,
    browser_authorize,
    connect_http,
    connect_sse,
)
from tests.fakes import FakeClock
from tests.tools.mcp_helpers import HANG, descendants, free_port, http_server

pytestmark = pytest.mark.anyio

SERVER = str(Path(__file__).with_name("mcp_remote_server.py"))


@contextlib.contextmanager
def remote(mode: str, **env: str) -> Iterator[tuple[str, int]]:
    """The remote server in ``mode``; yields ``(url, pid)`` (``/sse`` for the SSE modes)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        started = http_server(SERVER, mode)
        url, pid = started.__enter__()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    try:
        yield (url.replace("/mcp", "/sse") if "sse" in mode else url), pid
    finally:
        started.__exit__(None, None, None)


@pytest.fixture(scope="module")
def oauth_http() -> Iterator[tuple[str, int]]:
    with remote("oauth") as server:
        yield server


class Clocks:
    """One fake time for both sides of the OAuth exchange: the server's token expiry (its
    ``CLOCK`` file) and the client's (mcp's and llmbridge's ``time``, patched)."""

    CLIENT_MODULES = (
        "mcp.client.auth.oauth2",
        "mcp.shared.auth_utils",
        "llmbridge.mcp.oauth.flow",
        "llmbridge.mcp.oauth.store",
    )

    def __init__(self, file: Path) -> None:
        self.file = file
        self.advanced = 0.0
        self.client = FakeClock()
        file.write_text("0")

    def patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.client = FakeClock()
        for module in self.CLIENT_MODULES:
            monkeypatch.setattr(f"{module}.time", self.client)

    def advance(self, seconds: float) -> None:
        self.advanced += seconds
        self.file.write_text(str(self.advanced))
        self.client.advance(seconds)


@pytest.fixture(scope="module")
def oauth_short(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Clocks]]:
    clocks = Clocks(tmp_path_factory.mktemp("clock") / "seconds")
    with remote("oauth", EXPIRES="2", CLOCK=str(clocks.file)) as (url, pid):  # two seconds
        yield url, pid, clocks


@pytest.fixture(scope="module")
def oauth_sse() -> Iterator[tuple[str, int]]:
    with remote("oauth-sse") as server:
        yield server


@pytest.fixture(scope="module")
def plain_sse() -> Iterator[tuple[str, int]]:
    with remote("sse") as server:
        yield server


@pytest.fixture(scope="module")
def bearer() -> Iterator[tuple[str, int]]:
    with remote("bearer") as server:
        yield server


@pytest.fixture(scope="module")
def echo() -> Iterator[tuple[str, int]]:
    with remote("oauth-echo") as server:
        yield server


class Browser:
    """The user's browser: follows the authorization URL, returns where it was sent back."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.returned: list[str] = []

    async def __call__(self, url: str) -> str:
        self.urls.append(url)
        async with httpx.AsyncClient() as client:
            answer = await client.get(url)
        assert answer.status_code == 302, answer.text
        self.returned.append(answer.headers["location"])
        return answer.headers["location"]

    def codes(self) -> list[str]:
        return [parse_qs(urlsplit(u).query)["code"][0] for u in self.returned]


async def stats(connection: Any) -> dict[str, int]:
    return (await connection.call_tool("stats", {})).data  # type: ignore[no-any-return]


@contextlib.contextmanager
def nothing_left(*servers: int) -> Iterator[None]:
    """No process started below this one (the servers aside) and no thread left running."""
    before = descendants(exclude=set(servers))
    threads = _threads()
    yield
    assert descendants(exclude=set(servers)) == before
    assert _threads() <= threads


def _threads() -> set[threading.Thread]:
    """Running threads, the event loops' idle worker pools (``to_thread``) aside."""
    pools = ("AnyIO worker thread", "Trio thread", "asyncio_")  # the default executor
    return {t for t in threading.enumerate() if not t.daemon and not t.name.startswith(pools)}


async def test_the_whole_oauth_flow_then_stored_tokens(
    oauth_http: tuple[str, int], tmp_path: Path
) -> None:
    url, pid = oauth_http
    browser = Browser()
    path = tmp_path / "tokens" / "mcp.json"
    with nothing_left(pid), anyio.fail_after(HANG):
        oauth = MCPOAuth(authorize=browser, store=FileTokenStore(path), scopes=["mcp"])
        async with connect_http(url, auth=oauth, name="remote") as connection:
            before = await stats(connection)
            client_id = (await connection.call_tool("who", {})).data["result"]
        # 401 -> discovery -> registration -> authorize (PKCE, S256, state) -> token -> call
        assert len(browser.urls) == 1
        asked = parse_qs(urlsplit(browser.urls[0]).query)
        assert asked["code_challenge_method"] == ["S256"] and asked["client_id"] == [client_id]
        assert asked["redirect_uri"] == ["http://localhost:33418/callback"]
        assert asked["scope"] == ["mcp"] and asked["state"] and asked["code_challenge"]
        assert before["register"] >= 1 and before["authorize"] >= 1 and before["code"] >= 1
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

        # a new process (a new MCPOAuth, the same file): the stored tokens, no authorize
        again = MCPOAuth(authorize=browser, store=FileTokenStore(path))
        async with connect_http(url, auth=again, name="remote") as connection:
            assert (await connection.call_tool("who", {})).data["result"] == client_id
            assert await stats(connection) == before
        assert len(browser.urls) == 1


async def test_connections_starting_together_ask_the_person_once(
    oauth_http: tuple[str, int],
) -> None:
    url, pid = oauth_http
    browser = Browser()
    store = InMemoryTokenStore()  # nothing stored: each would authorize on its own
    seen: list[str] = []

    async def connect() -> None:
        async with connect_http(url, auth=MCPOAuth(authorize=browser, store=store)) as c:
            seen.append((await c.call_tool("who", {})).data["result"])

    with nothing_left(pid), anyio.fail_after(HANG):
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(connect)
    assert len(browser.urls) == 1  # one authorization; the others used its tokens
    assert len(seen) == 3 and len(set(seen)) == 1  # one registered client


async def test_tokens_are_refreshed_within_and_across_connections(
    oauth_short: tuple[str, int, Clocks], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, pid, clocks = oauth_short
    clocks.patch(monkeypatch)
    browser = Browser()
    store = InMemoryTokenStore()
    with nothing_left(pid), anyio.fail_after(HANG):
        async with connect_http(url, auth=MCPOAuth(authorize=browser, store=store)) as connection:
            first = await stats(connection)
            clocks.advance(2.1)  # the access token expired: refreshed, not authorized again
            assert (await connection.call_tool("add", {"a": 1, "b": 2})).data == {"result": 3}
            second = await stats(connection)
        assert second["refresh"] == first["refresh"] + 1
        assert second["authorize"] == first["authorize"]
        clocks.advance(2.1)
        # a later connection finds the stored token expired: it refreshes it (the expiry is
        # stored beside it), the user is not asked again
        async with connect_http(url, auth=MCPOAuth(authorize=browser, store=store)) as connection:
            third = await stats(connection)
        assert third["refresh"] >= second["refresh"] + 1
        assert third["authorize"] == first["authorize"]
        assert len(browser.urls) == 1


async def test_the_sse_transport_with_and_without_oauth(
    plain_sse: tuple[str, int], oauth_sse: tuple[str, int]
) -> None:
    browser = Browser()
    with nothing_left(plain_sse[1], oauth_sse[1]), anyio.fail_after(HANG):
        async with connect_sse(plain_sse[0], name="legacy") as connection:
            names = sorted(t.name for t in await connection.list_tools())
            assert names == ["add", "slow", "stats", "who"]
            assert (await connection.call_tool("add", {"a": 2, "b": 3})).data == {"result": 5}
            assert (await connection.call_tool("who", {})).data == {"result": "anonymous"}
        async with connect_sse(oauth_sse[0], auth=MCPOAuth(authorize=browser)) as connection:
            assert (await connection.call_tool("who", {})).data["result"] != "anonymous"
        assert len(browser.urls) == 1


async def test_static_bearer_tokens_keep_working(bearer: tuple[str, int]) -> None:
    url, pid = bearer
    with nothing_left(pid), anyio.fail_after(HANG):
        headers = {"Authorization": "Bearer s3cr3t-static"}
        async with connect_http(url, headers=headers) as connection:
            assert (await connection.call_tool("who", {})).data == {"result": "static"}
        async with connect_http(url, auth=BearerAuth("s3cr3t-static")) as connection:  # httpx
            assert (await connection.call_tool("who", {})).data == {"result": "static"}
        with pytest.raises(lb.MCPError) as info:
            async with connect_http(url, headers={"Authorization": "Bearer wr0ng-t0ken"}):
                pass
        assert "wr0ng-t0ken" not in str(info.value) and url in str(info.value)
        assert "answered HTTP 401: the credentials were refused" in str(info.value)


async def test_mcp_servers_config_with_oauth_sse_and_static_headers(
    oauth_http: tuple[str, int], plain_sse: tuple[str, int], bearer: tuple[str, int]
) -> None:
    browser = Browser()
    config = {
        "mcpServers": {
            "oauthed": {"url": oauth_http[0], "auth": "oauth"},
            "legacy": {"type": "sse", "url": plain_sse[0]},
            "static": {"url": bearer[0], "headers": {"Authorization": "Bearer ${TOKEN}"}},
        }
    }
    no_hook = {"url": oauth_http[0], "oauth": {"scopes": "mcp"}}
    store = InMemoryTokenStore()
    with nothing_left(oauth_http[1], plain_sse[1], bearer[1]), anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(
            config,
            oauth=MCPOAuth(authorize=browser, store=store),
            environ={"TOKEN": "s3cr3t-static"},
        ) as servers:
            assert set(servers.failures) == set()
            registry = servers.registry
            assert registry.server_of("oauthed__who") == "oauthed"
            assert registry.server_of("legacy__add") == "legacy"
            who = await registry.acall("oauthed__who", {})
            assert who.data["result"] != "anonymous"
            assert (await registry.acall("static__who", {})).data == {"result": "static"}
            assert (await registry.acall("legacy__add", {"a": 1, "b": 1})).data["result"] == 2
        assert len(browser.urls) == 1

        async with lb.connect_mcp_servers({"mcpServers": {"x": no_hook}}) as s:
            failure = s.failures["x"]
        assert isinstance(failure, MCPAuthError) and failure.server == "x"
        assert "no authorize hook" in str(failure)


async def test_no_secret_in_errors_failures_or_logs(
    echo: tuple[str, int], oauth_http: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    browser = Browser()
    store = InMemoryTokenStore()
    with anyio.fail_after(HANG):
        # a token endpoint that echoes what it was sent (code, verifier, client secret)
        with pytest.raises(MCPAuthError) as info:
            async with connect_http(echo[0], auth=MCPOAuth(authorize=browser, store=store)):
                pass
        async with lb.connect_mcp_servers(
            {"echo": {"url": echo[0]}}, oauth=MCPOAuth(authorize=browser, store=store)
        ) as servers:
            failure = servers.failures["echo"]
        shown = [str(info.value), repr(info.value), str(failure), repr(failure)]
        for cause in (info.value.__cause__, failure.__cause__):
            while cause is not None:
                shown.append(str(cause))
                cause = cause.__cause__
        saved = await store.load(next(iter(store.keys())))
        assert saved is not None
        client_secret = saved["client"]["client_secret"]
        secrets = {client_secret, *browser.codes()}
        assert len(client_secret) >= 16 and len(secrets) == 3
        for text in shown:
            assert "refused:" in shown[0]
            assert "code_verifier=<redacted>" in shown[0]
            assert not any(s in text for s in secrets), text

        # a flow that works: its access and refresh tokens show nowhere either
        working = InMemoryTokenStore()
        oauth = MCPOAuth(authorize=browser, store=working, client_secret="not-used-by-dcr")
        async with connect_http(oauth_http[0], auth=oauth, name="ok") as connection:
            await connection.call_tool("who", {})
            provider_repr = repr(connection)
        tokens = (await working.load(next(iter(working.keys()))))["tokens"]  # type: ignore[index]
        secrets |= {tokens["access_token"], tokens["refresh_token"]}
        browser_side = ("httpx", "httpcore")  # the test's browser (httpx 1), not the client's
        logged = "\n".join(
            caplog.handler.format(r)
            for r in caplog.records
            if r.name.partition(".")[0] not in browser_side
        )
        assert "mcp.client.auth" in logged and "OAuth flow error" in logged
        reprs = [repr(oauth), repr(working), repr(store), provider_repr]
        for text in [logged, *reprs]:
            leaked = [line for line in text.splitlines() if any(s in line for s in secrets)]
            assert not leaked
        assert "not-used-by-dcr" not in repr(oauth)


async def test_the_browser_comes_back_to_a_loopback_listener(oauth_http: tuple[str, int]) -> None:
    url, pid = oauth_http
    port = free_port()
    opened: list[str] = []

    def browser(address: str) -> None:  # the user's browser (a thread): slow, follows redirects
        opened.append(address)
        time.sleep(1.5)  # longer than the connect timeout: the person is not the server
        page = httpx.get(address, follow_redirects=True)
        assert page.status_code == 200 and "close this window" in page.text

    hook = functools.partial(browser_authorize, open_browser=browser, announce=False)
    oauth = MCPOAuth(authorize=hook, redirect_uri=f"http://127.0.0.1:{port}/callback")
    with nothing_left(pid), anyio.fail_after(HANG):
        async with connect_http(url, auth=oauth, timeout=1) as connection:
            assert (await connection.call_tool("who", {})).data["result"] != "anonymous"
        assert len(opened) == 1
        with socket.socket() as sock:  # the listener is gone: the port can be listened on
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (TIME_WAIT aside)
            sock.bind(("127.0.0.1", port))
            sock.listen()


async def test_browser_authorize_refusals() -> None:
    def url(redirect: str) -> str:
        return "https://as.example/authorize?" + urlencode({"redirect_uri": redirect})

    with pytest.raises(MCPAuthError, match="localhost:PORT"):
        await browser_authorize(url("https://app.example/callback"), open_browser=False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MCPAuthError, match="cannot listen"):
            await browser_authorize(url(f"http://127.0.0.1:{port}/cb"), open_browser=False)
    with pytest.raises(MCPAuthError, match="did not come back"):
        await browser_authorize(
            url(f"http://127.0.0.1:{free_port()}/cb"), open_browser=False, timeout=0.2,
            announce=False,
        )  # fmt: skip


async def test_an_untyped_url_falls_back_to_sse(
    oauth_http: tuple[str, int], bearer: tuple[str, int]
) -> None:
    """The spec's advice for servers that may be older: streamable HTTP first, SSE when the
    server refuses the initialize POST with a 4xx; typed entries never fall back."""
    with remote("sse-events") as (url, pid), nothing_left(pid), anyio.fail_after(HANG):
        events = url.replace("/sse", "/events")
        config = {
            "old": {"url": events},  # no type, no /sse: found out
            "typed": {"type": "http", "url": events},  # said http: not second-guessed
            "refused": {"url": bearer[0], "headers": {"Authorization": "Bearer wr0ng-t0ken"}},
        }
        async with lb.connect_mcp_servers(config) as servers:
            assert set(servers.failures) == {"typed", "refused"}, servers.failures
            assert servers.failures["typed"].http_status == 405
            refused = servers.failures["refused"]  # a 401 is no reason to try SSE
            assert refused.http_status == 401 and "credentials were refused" in str(refused)
            assert servers.registry.server_of("add") == "old"
            assert (await servers.registry.acall("add", {"a": 2, "b": 2})).data == {"result": 4}

"""Remote MCP servers without a network: the ``mcpServers`` spellings of SSE, WebSocket and
OAuth; which entries use OAuth; the token stores; the authorize hook's answers; reprs."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.mcp import (
    FileTokenStore,
    InMemoryTokenStore,
    MCPAuthError,
    MCPOAuth,
    load_mcp_config,
)
from llmbridge.mcp.hub.config import MCPHttpServerConfig, MCPOAuthEntry, MCPSseServerConfig
from llmbridge.mcp.oauth.flow import _Hook, entry_oauth, store_key
from tests.heartbeat import Heartbeat

pytestmark = pytest.mark.anyio


def one(entry: dict[str, Any], **environ: str) -> Any:
    return load_mcp_config({"mcpServers": {"s": entry}}, environ=environ)["s"]


@pytest.mark.parametrize(
    ("entry", "kind"),
    [
        ({"type": "sse", "url": "http://h/x"}, MCPSseServerConfig),
        ({"transport": "sse", "url": "http://h/x"}, MCPSseServerConfig),
        ({"transport": {"type": "sse"}, "url": "http://h/x"}, MCPSseServerConfig),  # Cursor
        ({"url": "https://h/sse"}, MCPSseServerConfig),  # the convention, when no type says
        ({"url": "https://h/v1/sse/"}, MCPSseServerConfig),
        ({"url": "https://h/mcp"}, MCPHttpServerConfig),
        ({"url": "https://h/sse-docs"}, MCPHttpServerConfig),
        ({"type": "http", "url": "https://h/sse"}, MCPHttpServerConfig),  # a type wins
        ({"type": "streamable-http", "url": "https://h/mcp"}, MCPHttpServerConfig),
    ],
)
def test_which_transport_an_entry_speaks(entry: dict[str, Any], kind: type) -> None:
    assert type(one(entry)) is kind


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "websocket", "url": "https://h/ws"},
        {"transport": "ws", "url": "https://h/ws"},
        {"url": "wss://h/mcp"},
        {"url": "ws://127.0.0.1:9000"},
    ],
)
def test_websocket_entries_are_refused_by_name(entry: dict[str, Any]) -> None:
    with pytest.raises(lb.MCPConfigError) as info:
        one(entry)
    message = str(info.value)
    assert "WebSocket" in message and "no WebSocket client" in message
    assert "stdio" in message and "http" in message and "sse" in message
    assert info.value.server == "s" and info.value.field == "type"


def test_oauth_spellings() -> None:
    assert one({"url": "https://h/mcp"}).oauth is None
    assert one({"url": "https://h/mcp", "auth": "oauth"}).oauth is True
    assert one({"url": "https://h/mcp", "oauth": True}).oauth is True
    assert one({"url": "https://h/mcp", "oauth": False}).oauth is False
    claude = one({"url": "https://h/mcp", "oauth": {"clientId": "app", "callbackPort": 8765}}).oauth
    assert claude == MCPOAuthEntry(client_id="app", redirect_uri="http://localhost:8765/callback")
    cursor = one(
        {
            "url": "https://h/mcp",
            "auth": {"CLIENT_ID": "app", "CLIENT_SECRET": "${SECRET}", "scopes": ["read"]},
        },
        SECRET="client-secret-value",
    )
    assert cursor.oauth.client_secret == "client-secret-value"
    assert cursor.oauth.scopes == ["read"] and cursor.oauth.client_id == "app"
    assert "client-secret-value" not in repr(cursor)
    assert "client-secret-value" in cursor.expanded_values  # scrubbed from its errors
    spaced = one({"type": "sse", "url": "https://h/x", "oauth": {"scope": "a b"}})
    assert spaced.oauth.scopes == ["a", "b"]


@pytest.mark.parametrize(
    "entry",
    [
        {"url": "https://h/mcp", "auth": 3},
        {"url": "https://h/mcp", "oauth": {"clientSecret": "hidden-value", "bogus": "x"}},
    ],
)
def test_bad_oauth_settings_name_the_field_and_hide_values(entry: dict[str, Any]) -> None:
    with pytest.raises(lb.MCPConfigError) as info:
        one(entry)
    assert info.value.field == "oauth" and "hidden-value" not in str(info.value)


def test_which_entries_use_oauth() -> None:
    app = MCPOAuth(redirect_uri="http://localhost:9/cb", scopes=["x"])
    plain = one({"url": "https://h/mcp"})
    static = one({"url": "https://h/mcp", "headers": {"authorization": "Bearer t"}})
    assert entry_oauth(plain, None) is None  # nobody asked
    assert entry_oauth(plain, app) is app  # the app's oauth=: every server that answers 401
    assert entry_oauth(static, app) is None  # a static token keeps working
    assert entry_oauth(one({"url": "https://h/mcp", "oauth": False}), app) is None
    asked = entry_oauth(one({"url": "https://h/mcp", "auth": "oauth"}), None)
    assert isinstance(asked, MCPOAuth) and asked.authorize is None  # fails with a clear error
    mine = entry_oauth(
        one({"url": "https://h/mcp", "oauth": {"clientId": "c", "scopes": ["y"]}}), app
    )
    assert mine is not None and mine.client_id == "c" and mine.scopes == ["y"]
    assert mine.redirect_uri == "http://localhost:9/cb" and mine.store is app.store


async def test_file_store_is_owner_only_and_atomic(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "tokens.json"
    store = FileTokenStore(path)
    assert await store.load("https://h/mcp") is None
    await store.save("https://h/mcp", {"tokens": {"access_token": "a" * 20}})
    await store.save("https://other/mcp", {"client": {"client_id": "c"}})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    os.chmod(path, 0o644)  # loosened by someone: the next save makes it owner-only again
    await store.save("https://h/mcp", {"tokens": {"access_token": "b" * 20}})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = FileTokenStore(path)  # another process
    assert await again.load("https://h/mcp") == {"tokens": {"access_token": "b" * 20}}
    assert await again.load("https://other/mcp") == {"client": {"client_id": "c"}}
    await again.delete("https://h/mcp")
    assert await store.load("https://h/mcp") is None
    assert [p.name for p in path.parent.iterdir()] == ["tokens.json"]  # no temporary left
    assert "a" * 20 not in repr(store) and str(path) in repr(store)
    path.write_text("[1, 2]")
    with pytest.raises(lb.MCPError, match="not a JSON object"):
        await store.load("x")


async def test_memory_store_keeps_copies() -> None:
    store = InMemoryTokenStore()
    value = {"tokens": {"access_token": "secret-access-token"}}
    await store.save("k", value)
    value["tokens"]["access_token"] = "changed"
    loaded = await store.load("k")
    assert loaded == {"tokens": {"access_token": "secret-access-token"}}
    assert "secret-access-token" not in repr(store)


def test_store_keys_leave_the_query_out() -> None:
    assert store_key("https://h/mcp?key=abcdefgh#x") == "https://h/mcp"


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("http://localhost:33418/callback?code=the-code-value&state=st4te", "the-code-value"),
        ("?code=the-code-value&state=st4te", "the-code-value"),
        ("code=the-code-value&state=st4te&iss=https%3A%2F%2Fas", "the-code-value"),
        ({"code": "the-code-value", "state": "st4te", "iss": None}, "the-code-value"),
    ],
)
async def test_the_authorize_hook_answer(answer: Any, code: str) -> None:
    secrets: set[str] = set()
    hook = _Hook(lambda url: answer, "s", "https://h/mcp", secrets)  # sync hooks too
    await hook.redirect("https://as/authorize?x=1")
    result = await hook.callback()
    assert result.code == code and result.state == "st4te" and code in secrets


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            "http://localhost/cb?error=access_denied&error_description=no+way",
            "refused: access_denied",
        ),
        ("http://localhost/cb?state=x", "no authorization code"),
        (None, "must return the URL"),
    ],
)
async def test_hook_answers_that_are_errors(answer: Any, message: str) -> None:
    async def authorize(url: str) -> Any:
        return answer

    hook = _Hook(authorize, "s", "https://h/mcp?key=hidden-key-value", set())
    with pytest.raises(MCPAuthError, match=message) as info:
        await hook.redirect("https://as/authorize")
    assert info.value.server == "s" and "hidden-key-value" not in str(info.value)


def test_reprs_show_no_secret() -> None:
    oauth = MCPOAuth(client_id="app", client_secret="the-client-secret")
    assert "the-client-secret" not in repr(oauth) and "app" in repr(oauth)
    entry = MCPOAuthEntry(client_id="app", client_secret="the-client-secret")
    assert "the-client-secret" not in repr(entry)


async def test_a_sync_hook_runs_in_a_thread() -> None:
    """A hook that blocks (``input()``, a browser it waits for) does not stop the event loop."""
    seen: list[bool] = []
    heartbeat = Heartbeat()
    ticked: list[int] = []

    def blocking(url: str) -> str:
        seen.append(threading.current_thread() is threading.main_thread())
        ticked.append(heartbeat.wait_in_thread(ticks=5))
        return "?code=the-code-value&state=s"

    async with anyio.create_task_group() as tg:
        tg.start_soon(heartbeat.run)
        await _Hook(blocking, "s", "https://h/mcp", set()).redirect("https://as/authorize")
        tg.cancel_scope.cancel()
    assert seen == [False] and len(ticked) == 1 and ticked[0] >= 5  # (or more: see heartbeat)

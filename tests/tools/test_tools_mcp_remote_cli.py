"""``llmbridge chat --mcp`` with a server that asks for OAuth: the browser opens once, comes
back to the loopback listener, and the tokens are kept (0600) for the next run."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

pytest.importorskip("mcp")

from llmbridge.cli import main
from llmbridge.mcp.oauth.hooks import cli_oauth
from tests.fakes import chat_sse, sse_response
from tests.tools.mcp_helpers import free_port, http_server

SERVER = str(Path(__file__).with_name("mcp_remote_server.py"))
_AsyncClient = httpx.AsyncClient


@pytest.fixture
def oauth_server() -> Iterator[str]:
    with http_server(SERVER, "oauth") as (url, _pid):
        yield url


def _answer(request: httpx.Request) -> httpx.Response:
    return sse_response(chat_sse({"content": "ok"}))


def test_chat_authorizes_once_and_keeps_the_tokens(
    oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    requests: list[httpx.Request] = []

    def model(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return _answer(request)

    class FakeClient(_AsyncClient):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(transport=httpx.MockTransport(model))

    opened: list[str] = []

    def browser(url: str) -> bool:  # the user's browser: follows the redirects back home
        opened.append(url)
        assert httpx.get(url, follow_redirects=True, timeout=60).status_code == 200
        return True

    tokens = tmp_path / "state" / "mcp-oauth.json"
    monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
    monkeypatch.setattr("llmbridge.mcp.oauth.hooks._open_in_browser", browser)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LLMBRIDGE_MCP_TOKENS", str(tokens))
    config = tmp_path / "mcp.json"
    # a free port for the browser to come back to (the default one may be another run's)
    port = free_port()
    entry = {"url": oauth_server, "oauth": {"callbackPort": port}}
    config.write_text(json.dumps({"mcpServers": {"remote": entry}}))
    argv = ["chat", "openai:gpt-4.1-mini", "hi", "--mcp", str(config)]
    assert main(argv) == 0
    assert main(argv) == 0  # the stored tokens: no browser the second time
    assert len(opened) == 1
    assert parse_qs(urlsplit(opened[0]).query)["redirect_uri"] == [
        f"http://localhost:{port}/callback"
    ]
    assert "Authorize in your browser" in capsys.readouterr().err
    for request in requests:
        names = {t["function"]["name"] for t in json.loads(request.content)["tools"]}
        assert {"add", "who", "stats"} <= names
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    saved = json.loads(tokens.read_text())
    assert list(saved) == [oauth_server] and saved[oauth_server]["tokens"]["access_token"]


def test_where_the_cli_keeps_tokens(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert str(cli_oauth({"XDG_CONFIG_HOME": home}).store.path) == (  # type: ignore[attr-defined]
        f"{home}/llmbridge/mcp-oauth.json"
    )
    chosen = cli_oauth({"LLMBRIDGE_MCP_TOKENS": f"{home}/t.json"})
    assert str(chosen.store.path) == f"{home}/t.json"  # type: ignore[attr-defined]

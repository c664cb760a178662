"""Ready-made ``authorize`` hooks for ``MCPOAuth``: ``browser_authorize`` (desktop apps: the
browser comes back to a listener on this machine) and ``terminal_authorize`` (the user pastes
the address the browser ended on).

Rules: a hook gets the authorization URL and returns the URL the browser was redirected to.
``browser_authorize`` reads where that is from the authorization URL's ``redirect_uri`` (the
one ``MCPOAuth`` registered), listens there before the browser opens (loopback addresses
only: ``localhost``, ``127.0.0.1``, ``[::1]``), answers the one request on its path with a
page saying the window can be closed, and stops listening. It waits ``timeout`` seconds at
most (``MCPAuthError``); a port in use is an ``MCPAuthError`` too. The URL is also printed to
stderr, for when no browser opens. ``cli_oauth`` is what ``llmbridge chat --mcp`` uses.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import SocketStream

from ...terminal import terminal_url
from .flow import MCPAuthError, MCPOAuth
from .store import FileTokenStore

__all__ = ["browser_authorize", "cli_oauth", "terminal_authorize"]

_LOOPBACK = ("localhost", "127.0.0.1", "::1")
_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>llmbridge</title><p>Authorization received: you can close this "
    b"window.</p>"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def _open_in_browser(url: str) -> Any:
    import webbrowser

    return webbrowser.open(url)


async def browser_authorize(
    url: str,
    *,
    open_browser: Callable[[str], Any] | bool = True,
    timeout: float = 300.0,
    announce: bool = True,
) -> str:
    """Open ``url`` in a browser and wait for it to come back to the loopback ``redirect_uri``
    (see the module rules). ``open_browser``: how the URL is opened (``True``: the system's
    browser, ``webbrowser``; ``False``: not at all);
    ``announce``: print the URL to stderr too."""
    asked = parse_qs(urlsplit(url).query).get("redirect_uri", [""])[0]
    target = urlsplit(asked)
    host = target.hostname or ""
    if target.scheme != "http" or host not in _LOOPBACK or target.port is None:
        raise MCPAuthError(
            "browser_authorize listens on http://localhost:PORT/... only; the redirect URI "
            f"here is {asked!r} (set MCPOAuth(redirect_uri=...), or use another hook)"
        )
    path = target.path or "/"
    back: list[str] = []
    done = anyio.Event()

    async def answer(stream: SocketStream) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(10):
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    data += await stream.receive()
            parts = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            if len(parts) < 2 or parts[0] != "GET" or urlsplit(parts[1]).path != path:
                await stream.send(_NOT_FOUND)
                return
            await stream.send(_PAGE)
            back.append(f"http://{target.netloc}{parts[1]}")
            done.set()

    try:
        listener = await anyio.create_tcp_listener(local_host=host, local_port=target.port)
    except OSError as exc:
        raise MCPAuthError(
            f"cannot listen on {target.netloc} for the browser to come back: {exc}"
        ) from exc
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, answer)
        if announce:
            shown = terminal_url(url)  # the server's metadata made it: shown inert
            print(
                f"\nAuthorize in your browser; if none opens, visit:\n  {shown}\n", file=sys.stderr
            )
        opener = _open_in_browser if open_browser is True else open_browser
        if callable(opener):
            await anyio.to_thread.run_sync(opener, url)
        with anyio.move_on_after(timeout):
            await done.wait()
        tg.cancel_scope.cancel()
    if not back:
        raise MCPAuthError(f"the browser did not come back to {asked} within {timeout:g} s")
    return back[0]


async def terminal_authorize(url: str) -> str:
    """An ``authorize`` hook for terminals without a browser on this machine: prints the URL,
    then reads the address the browser ended on from stdin (paste it, even if the page did not
    load)."""
    shown = terminal_url(url)  # the server's metadata made it: shown inert
    print(f"\nAuthorize llmbridge: open this URL in a browser:\n\n  {shown}\n", file=sys.stderr)

    def ask() -> str:
        print("Then paste the address the browser ends on: ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip()

    return await anyio.to_thread.run_sync(ask)


def cli_oauth(environ: Mapping[str, str] | None = None) -> MCPOAuth:
    """What ``llmbridge chat --mcp`` authorizes with: the browser coming back to a loopback
    listener, tokens kept in ``$LLMBRIDGE_MCP_TOKENS`` (default
    ``$XDG_CONFIG_HOME/llmbridge/mcp-oauth.json``, or ``~/.config/...``; mode 0600)."""
    env = os.environ if environ is None else environ
    path = env.get("LLMBRIDGE_MCP_TOKENS") or os.path.join(
        env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config"),
        "llmbridge",
        "mcp-oauth.json",
    )
    return MCPOAuth(authorize=browser_authorize, store=FileTokenStore(path))

"""MCP traffic in cassettes: what an app's MCP servers answered, recorded once and served again
without starting them (no process, no ``npx``, no HTTP).

Rules:

* ``record_mcp()`` / ``replay_mcp(path)`` are context managers around the app's code (the
  pytest plug-in opens them for each test: ``mcp.json`` beside its cassette). They hook the
  streams every MCP session speaks over (``llmbridge.mcp.connection.traffic``), so
  ``connect_stdio``, ``connect_http``, ``connect_sse`` and ``MCPServers`` all go through them.
* Recording keeps, per server (its name in the config, else its command line or URL), each
  request the client sent (``method``, ``params`` without ``_meta``) with the server's answer
  (``result`` or ``error``) and the notifications (progress, logs) that came while it was
  pending; the server's own requests (roots, sampling, elicitation) are not kept. Secrets the
  server's entry holds are scrubbed, and so is what a ``scrub`` hook removes.
* Replaying answers each request with the first recorded exchange of the same method and
  params not yet played (else the last one played, without its notifications: listing twice
  is fine); ``initialize`` is answered whatever its params. A request nobody recorded (a tool the cassette never called,
  other arguments, a server it does not know) is answered with an error saying so (a
  ``tools/call``: a tool result with ``isError``; others: a JSON-RPC error) and kept in
  ``problems``; ``assert_matched()`` (the plug-in, after a passing test) raises
  ``ReplayMismatch`` naming the server, the method, the tool and the field that differs.
  ``match_ignore`` paths (``llmbridge.testing.matching``) apply to the params.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import orjson

from ..mcp.connection.traffic import Streams, use_traffic_hook
from ..secrets import scrub_json
from .fixtures import dump_json
from .matching import field_diff, without_ignored
from .redact import Scrub
from .replay import ReplayMismatch

__all__ = ["MCP_FILE", "MCPRecorder", "MCPReplay", "record_mcp", "replay_mcp"]

MCP_FILE = "mcp.json"
"""The file of a cassette folder that holds its MCP traffic."""
_RPC_ERROR = -32603


def _dump(message: Any) -> dict[str, Any]:
    root = getattr(message, "root", message)  # (a root model in older SDKs)
    data = root.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data if isinstance(data, dict) else {}


def _params(params: Any) -> Any:
    if isinstance(params, dict):
        return {k: v for k, v in params.items() if k != "_meta"}
    return params


class _SessionLog:
    """One session's exchanges, as they pass (``MCPRecorder``)."""

    def __init__(self, into: list[dict[str, Any]]) -> None:
        self.exchanges = into
        self.pending: dict[Any, dict[str, Any]] = {}

    def sent(self, item: Any) -> None:
        data = _dump(getattr(item, "message", item))
        if "method" in data and "id" in data:
            exchange = {"method": data["method"], "params": _params(data.get("params"))}
            self.pending[data["id"]] = exchange
            self.exchanges.append(exchange)

    def came(self, item: Any) -> None:
        if isinstance(item, BaseException) or not hasattr(item, "message"):
            return
        data = _dump(item.message)
        exchange = self.pending.pop(data.get("id"), None) if "method" not in data else None
        if exchange is not None:
            exchange.update({k: data[k] for k in ("result", "error") if k in data})
        elif "method" in data and "id" not in data and self.pending:  # a notification
            latest = list(self.pending.values())[-1]
            latest.setdefault("notifications", []).append(
                {"method": data["method"], "params": data.get("params")}
            )


class _TeeRead:
    def __init__(self, inner: Any, log: _SessionLog) -> None:
        self.inner, self.log = inner, log

    @property
    def last_context(self) -> Any:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Any:
        item = await self.inner.receive()
        self.log.came(item)
        return item

    def __aiter__(self) -> _TeeRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _TeeRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _TeeWrite:
    def __init__(self, inner: Any, log: _SessionLog) -> None:
        self.inner, self.log = inner, log

    async def send(self, item: Any, /) -> None:
        self.log.sent(item)
        await self.inner.send(item)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _TeeWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class MCPRecorder:
    """A traffic hook that records every session's exchanges (module rules)."""

    def __init__(self) -> None:
        self.servers: dict[str, list[dict[str, Any]]] = {}
        self._scrubs: list[Callable[[str], str]] = []

    def streams(self, server: str, streams: Streams, scrub: Callable[[str], str]) -> Streams:
        self._scrubs.append(scrub)
        return self._recorded(self.servers.setdefault(server, []), streams)

    @contextlib.asynccontextmanager
    async def _recorded(self, into: list[dict[str, Any]], streams: Streams) -> AsyncIterator[Any]:
        async with streams as opened:
            log = _SessionLog(into)
            yield (_TeeRead(opened[0], log), _TeeWrite(opened[1], log), *opened[2:])

    def data(self, scrub: Scrub | None = None) -> dict[str, Any]:
        """What ``MCP_FILE`` holds: the answered exchanges, scrubbed."""

        def clean(text: str) -> str:
            for each in self._scrubs:
                text = each(text)
            return scrub(text) if scrub is not None else text

        servers = {
            name: [e for e in exchanges if "result" in e or "error" in e]
            for name, exchanges in self.servers.items()
        }
        return {"version": 1, "servers": scrub_json(servers, clean)}

    def save(self, folder: str | Path, scrub: Scrub | None = None) -> Path:
        path = Path(folder) / MCP_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        dump_json(path, self.data(scrub))
        return path


class _ReplayWrite:
    """The write stream of a replayed session: each request is answered at once, from the
    recording, on the read stream (``answers``)."""

    def __init__(self, replay: MCPReplay, server: str, answers: Any) -> None:
        self.replay, self.server, self.answers = replay, server, answers

    async def send(self, item: Any, /) -> None:
        from mcp.shared.message import SessionMessage
        from mcp_types import jsonrpc_message_adapter

        data = _dump(getattr(item, "message", item))
        if "method" not in data or "id" not in data:
            return  # notifications, and the client's answers to the server's requests
        for message in self.replay.answer(self.server, data):
            parsed = jsonrpc_message_adapter.validate_python(message)
            self.answers.send_nowait(SessionMessage(parsed))

    async def aclose(self) -> None:
        self.answers.close()

    async def __aenter__(self) -> _ReplayWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class MCPReplay:
    """A traffic hook that serves recorded exchanges instead of the servers (module rules)."""

    def __init__(
        self, recording: dict[str, Any] | str | Path, *, match_ignore: Sequence[str] = ()
    ) -> None:
        data = (
            recording if isinstance(recording, dict) else orjson.loads(Path(recording).read_bytes())
        )
        self.servers: dict[str, list[dict[str, Any]]] = data.get("servers", {})
        self.match_ignore = list(match_ignore)
        self.played: dict[str, set[int]] = {}
        self.problems: list[str] = []

    def streams(self, server: str, streams: Streams, scrub: Callable[[str], str]) -> Streams:
        return self._replayed(server)

    @contextlib.asynccontextmanager
    async def _replayed(self, server: str) -> AsyncIterator[Any]:
        if server not in self.servers:
            known = ", ".join(repr(s) for s in self.servers) or "none"
            problem = f"no MCP traffic recorded for server {server!r} (recorded: {known})"
            self.problems.append(problem)
            raise ReplayMismatch(problem)
        send, receive = anyio.create_memory_object_stream[Any](math.inf)
        with send, receive:
            yield receive, _ReplayWrite(self, server, send)

    def answer(self, server: str, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages that answer ``request`` (its notifications, then its response)."""
        method, params = request["method"], _params(request.get("params"))
        exchanges = self.servers[server]
        played = self.played.setdefault(server, set())
        same = [i for i, e in enumerate(exchanges) if e.get("method") == method]
        if method != "initialize":
            wanted = without_ignored(params, self.match_ignore)
            same = [
                i
                for i in same
                if without_ignored(exchanges[i].get("params"), self.match_ignore) == wanted
            ]
        fresh = [i for i in same if i not in played]
        if not same:
            problem = self._mismatch(server, method, params)
            self.problems.append(problem)
            text = f"llmbridge replay: {problem}"
            if method == "tools/call":  # the tool's result says so (the loop shows it)
                result = {"content": [{"type": "text", "text": text}], "isError": True}
                return [{"jsonrpc": "2.0", "id": request["id"], "result": result}]
            error = {"code": _RPC_ERROR, "message": text}
            return [{"jsonrpc": "2.0", "id": request["id"], "error": error}]
        index = fresh[0] if fresh else same[-1]
        played.add(index)
        exchange = exchanges[index]
        token = ((request.get("params") or {}).get("_meta") or {}).get("progressToken")
        again = not fresh  # its notifications came once (a list_changed would loop)
        out = [] if again else [_notification(n, token) for n in exchange.get("notifications", [])]
        answer = {k: exchange[k] for k in ("result", "error") if k in exchange}
        return [*out, {"jsonrpc": "2.0", "id": request["id"], **answer}]

    def _mismatch(self, server: str, method: str, params: Any) -> str:
        exchanges = self.servers[server]
        same = [e for e in exchanges if e.get("method") == method]
        head = f"MCP server {server!r}: {method}"
        if method == "tools/call" and isinstance(params, dict):
            name = params.get("name")
            calls = [e for e in same if (e.get("params") or {}).get("name") == name]
            if not calls:
                called = sorted({str((e.get("params") or {}).get("name")) for e in same})
                listed = _listed_tools(exchanges)
                return (
                    f"{head} of tool {name!r}, which the recording never called (recorded "
                    f"calls: {', '.join(called) or 'none'}; tools it listed: "
                    f"{', '.join(listed) or 'none'})"
                )
            head, same = f"{head} of tool {name!r}", calls
        if not same:
            return f"{head}: never recorded (re-record the cassette)"
        fields = field_diff(
            without_ignored(same[0].get("params"), self.match_ignore),
            without_ignored(params, self.match_ignore),
            "params",
        )
        return f"{head} with params the recording does not hold: " + "; ".join(fields)

    def assert_matched(self) -> None:
        """Raise ``ReplayMismatch`` if a request found no recorded answer."""
        if self.problems:
            raise ReplayMismatch("MCP replay:\n" + "\n".join(self.problems))


def _listed_tools(exchanges: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for exchange in exchanges:
        if exchange.get("method") == "tools/list":
            for tool in (exchange.get("result") or {}).get("tools", []):
                if tool.get("name") not in names:
                    names.append(tool.get("name"))
    return names


def _notification(recorded: dict[str, Any], token: Any) -> dict[str, Any]:
    params = recorded.get("params")
    if token is not None and isinstance(params, dict) and "progressToken" in params:
        params = {**params, "progressToken": token}  # this request's, not the recorded one's
    message = {"jsonrpc": "2.0", "method": recorded["method"]}
    return {**message, "params": params} if params is not None else message


@contextlib.contextmanager
def record_mcp() -> Iterator[MCPRecorder]:
    """While open, every MCP session's traffic is recorded (``recorder.save(folder)``)."""
    with use_traffic_hook(MCPRecorder()) as recorder:
        yield recorder


@contextlib.contextmanager
def replay_mcp(
    recording: dict[str, Any] | str | Path, *, match_ignore: Sequence[str] = ()
) -> Iterator[MCPReplay]:
    """While open, every MCP session is served from ``recording`` (an ``MCP_FILE``, a cassette
    folder holding one, or its data), no server started."""
    if not isinstance(recording, dict) and Path(recording).is_dir():
        recording = Path(recording) / MCP_FILE
    with use_traffic_hook(MCPReplay(recording, match_ignore=match_ignore)) as replay:
        yield replay

"""The ``mcpServers`` config (Claude Desktop / Cursor / VS Code shape), read and checked.

Rules:

* Input is a dict or a path to a JSON file, either ``{"mcpServers": {name: entry}}`` or the
  inner ``{name: entry}`` (VS Code's ``"servers"`` key is accepted too).
* An entry is stdio (``command``, ``args``, ``env``, ``cwd``), streamable HTTP (``url``,
  ``headers``) or the legacy HTTP+SSE transport (the same keys); ``type`` / ``transport`` (a
  string, or Cursor's ``{"type": ...}``) may say which (``stdio``, ``http``,
  ``streamable-http``, ``sse``). Without one, a ``url`` whose path ends in ``/sse`` is SSE (the
  common convention of hosted servers), any other ``url`` streamable HTTP, falling back to SSE
  when the server refuses it (``connect_remote``: ``llmbridge.mcp.connection.transports``).
  ``websocket`` (or a ``ws://`` / ``wss://`` URL) is refused by name: the ``mcp`` package has
  no WebSocket client.
  An HTTP entry may ask for OAuth: ``"auth": "oauth"``, ``"oauth": true``, or ``"oauth"`` (or
  Cursor's ``"auth"``) as an object with a client registered beforehand (``clientId`` /
  ``CLIENT_ID``, ``clientSecret`` / ``CLIENT_SECRET``), ``scopes`` and ``callbackPort`` /
  ``redirectUri``; ``"oauth": false`` never uses it. ``disabled: true`` leaves it out
  (unchecked). llmbridge's own keys:
  ``allowed_tools`` (only these tools of the server), ``approval`` (``"always"``, ``"never"`` or a
  list of tool names that need approval), ``timeout`` (seconds per request),
  ``tool_timeout`` (seconds per tool call; default ``timeout``, else 60),
  ``startup_timeout`` (seconds to answer ``initialize``), ``roots`` (paths or ``file://`` URIs,
  or ``{"path"|"uri", "name"}`` objects: this server's roots, instead of
  ``connect_mcp_servers(roots=)``), ``log_level`` (an MCP level the server is asked to log
  from) and ``defer_loading`` (``true``: the server's tools are deferred, loaded by a
  ``ToolSearch`` when the model needs them). Other keys are ignored, as the apps that share
  these files do.
* ``${VAR}`` (also VS Code's and Cursor's ``${env:VAR}``, and ``${VAR:-default}``) in
  ``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers`` and ``roots`` is replaced from the
  environment; an unset variable without a default is an error. Expanded values never show:
  reprs, ``where`` and errors use the entry as written (``${VAR}``), reprs show only the names
  of ``env`` and ``headers``, and ``expanded_values`` (every value a ``${VAR}`` became) is
  scrubbed from the server's stderr tail and from every error about it (values of 8+
  characters, as every secret: ``llmbridge.secrets``).
* Every problem is an ``MCPConfigError`` naming the server and the field, raised while
  loading: before any server starts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

import orjson
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from ...errors import ConfigurationError
from .entry_keys import kind_of_url, near_miss, value_at

__all__ = [
    "MCPConfigError",
    "MCPHttpServerConfig",
    "MCPOAuthEntry",
    "MCPServerConfig",
    "MCPSseServerConfig",
    "MCPStdioServerConfig",
    "load_mcp_config",
]


class MCPConfigError(ConfigurationError):
    """An ``mcpServers`` config that cannot be used; ``server`` and ``field`` say where."""

    def __init__(self, message: str, *, server: str | None = None, field: str | None = None):
        super().__init__(message)
        self.server = server
        self.field = field


class _Common(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    disabled: bool = False
    allowed_tools: list[str] | None = None
    approval: Literal["always", "never"] | list[str] = "never"
    timeout: float | None = Field(default=None, gt=0)
    """Seconds one request (a tool call) may take; ``None``: the connect-time default."""
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds one tool call may take; ``None``: ``connect_mcp_servers(tool_timeout=)``, else
    ``timeout``, else ``DEFAULT_TOOL_TIMEOUT`` (60 s)."""
    startup_timeout: float | None = Field(default=None, gt=0)
    roots: list[str | dict[str, str]] | None = None
    """This server's roots (``llmbridge.mcp.elicitation.roots``); ``None``: the connect-time ones."""
    log_level: (
        Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
        | None
    ) = None
    defer_loading: bool = False
    """The server's tools are deferred (``ToolSpec.defer_loading``): a ``ToolSearch`` loads them."""
    _written: dict[str, Any] = PrivateAttr(default_factory=dict)
    """The fields ``${VAR}`` may appear in, as written (before expansion)."""
    _expanded: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @property
    def expanded_values(self) -> frozenset[str]:
        """What each ``${VAR}`` of the entry became (values and defaults): secrets to scrub
        from anything shown about the server (its stderr tail, its errors)."""
        return self._expanded

    def _as_written(self, field: str) -> Any:
        return self._written.get(field, getattr(self, field))

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            if name in ("env", "headers") and isinstance(value, dict):
                yield name, {key: "***" for key in value}
            elif name == "oauth":
                yield name, value  # its own repr leaves the client secret out
            elif name in _EXPANDED:
                yield name, self._as_written(name)
            else:
                yield name, value

    @field_validator("roots")
    @classmethod
    def _roots(cls, roots: list[Any] | None) -> list[Any] | None:
        if roots is not None:
            from ..elicitation.roots import root_entries

            root_entries(roots)  # a UsageError (a ValueError) names the bad root
        return roots

    def approval_for(self, tool: str) -> Literal["always", "never"]:
        if isinstance(self.approval, list):
            return "always" if tool in self.approval else "never"
        return self.approval


class MCPStdioServerConfig(_Common):
    """A server started as a subprocess, spoken to over stdin/stdout."""

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None

    @property
    def where(self) -> str:
        import shlex

        return shlex.join([self._as_written("command"), *self._as_written("args")])


class MCPOAuthEntry(BaseModel):
    """An HTTP entry's OAuth settings (over ``connect_mcp_servers(oauth=...)``'s)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    client_id: str | None = None
    client_secret: str | None = Field(default=None, repr=False)
    scopes: list[str] | None = None
    redirect_uri: str | None = None
    client_name: str | None = None


class MCPHttpServerConfig(_Common):
    """A server reached over streamable HTTP."""

    type: Literal["http", "sse"] = "http"
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    oauth: MCPOAuthEntry | bool | None = None
    """OAuth: ``True`` or settings (asked for by the entry), ``False`` (never), ``None`` (when
    the app passes ``connect_mcp_servers(oauth=...)`` and ``headers`` carry no
    ``Authorization``)."""
    _type_guessed: bool = PrivateAttr(default=False)

    @property
    def type_guessed(self) -> bool:
        """Whether the entry says no ``type`` (streamable HTTP is then tried first, SSE next)."""
        return self._type_guessed

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return url

    @property
    def where(self) -> str:
        return str(self._as_written("url"))


class MCPSseServerConfig(MCPHttpServerConfig):
    """A server reached over the legacy HTTP+SSE transport (protocol 2024-11-05)."""

    type: Literal["sse"] = "sse"


MCPServerConfig: TypeAlias = MCPStdioServerConfig | MCPHttpServerConfig

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_EXPANDED = ("command", "args", "env", "cwd", "url", "headers", "auth", "oauth", "roots")
_TYPES = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}
_WEBSOCKET = ("websocket", "ws", "wss", "websockets")
_TRANSPORTS = "stdio, http (streamable HTTP) or sse (the legacy HTTP+SSE transport)"
_OAUTH_KEYS = {
    "clientId": "client_id",
    "CLIENT_ID": "client_id",
    "clientSecret": "client_secret",
    "CLIENT_SECRET": "client_secret",
    "scope": "scopes",
    "redirectUri": "redirect_uri",
    "clientName": "client_name",
}


def _expand(
    value: Any, *, server: str, field: str, environ: Mapping[str, str], seen: set[str]
) -> Any:
    """``value`` with every ``${VAR}`` replaced; what they became is added to ``seen``."""
    if isinstance(value, str):

        def one(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                seen.add(environ[name])
                return environ[name]
            if default is not None:
                seen.add(default)
                return default
            raise MCPConfigError(
                f"MCP server {server!r}: {field} uses ${{{name}}}, which is not set in the "
                "environment (set it, or write ${" + name + ":-default})",
                server=server,
                field=field,
            )

        return _VAR.sub(one, value)
    if isinstance(value, list):
        return [_expand(v, server=server, field=field, environ=environ, seen=seen) for v in value]
    if isinstance(value, dict):
        return {
            k: _expand(v, server=server, field=f"{field}.{k}", environ=environ, seen=seen)
            for k, v in value.items()
        }
    return value


def _no_typos(name: str, data: Mapping[str, Any]) -> None:
    """A key that is nearly a field (``"arg"`` for ``"args"``) is an ``MCPConfigError``."""
    known = {*MCPStdioServerConfig.model_fields, *MCPHttpServerConfig.model_fields, *_EXPANDED}
    miss = near_miss(data, known | {"transport"})
    if miss is not None:
        key, meant = miss
        raise MCPConfigError(
            f"MCP server {name!r}: unknown field {key!r}; did you mean {meant!r}?",
            server=name,
            field=key,
        )


def _entry(name: str, raw: Any, environ: Mapping[str, str]) -> MCPServerConfig:
    if not isinstance(raw, Mapping):
        raise MCPConfigError(
            f"MCP server {name!r}: expected an object with 'command' or 'url', got "
            f"{type(raw).__name__}",
            server=name,
        )
    data = dict(raw)
    _no_typos(name, data)
    kind = data.pop("type", None) or data.pop("transport", None)
    if isinstance(kind, Mapping):  # Cursor: "transport": {"type": "sse"}
        kind = kind.get("type")
    url = data.get("url")
    if isinstance(url, str) and url.lower().startswith(("ws://", "wss://")) and kind is None:
        kind = "websocket"
    guessed = kind is None
    if kind is None:
        kind = kind_of_url(url) if "url" in data and "command" not in data else "stdio"
    if kind in _WEBSOCKET:
        raise MCPConfigError(
            f"MCP server {name!r}: the WebSocket transport is not supported (the mcp package "
            f"has no WebSocket client); the transports there are: {_TRANSPORTS}",
            server=name,
            field="type",
        )
    if kind not in _TYPES:
        raise MCPConfigError(
            f"MCP server {name!r}: type {kind!r} is not supported; the transports there are: "
            f"{_TRANSPORTS}",
            server=name,
            field="type",
        )
    if "command" not in data and "url" not in data:
        raise MCPConfigError(
            f"MCP server {name!r}: needs 'command' (a stdio server) or 'url' (an HTTP server)",
            server=name,
        )
    model: type[MCPServerConfig] = _MODELS[_TYPES[kind]]
    written = {key: data[key] for key in _EXPANDED if key in data}
    expanded: set[str] = set()
    for key in written:
        data[key] = _expand(data[key], server=name, field=key, environ=environ, seen=expanded)
    if model is not MCPStdioServerConfig:
        _oauth(data, name)
    try:
        entry = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "?"  # the entry's key
        got = value_at(raw, first["loc"]) if field in written else first.get("input")  # no secrets
        if field == "oauth":  # spelt in several ways, maybe holding a client secret
            got = "..."
        raise MCPConfigError(
            f"MCP server {name!r}: {field}: {first['msg']} (got {got!r})",
            server=name,
            field=field,
        ) from exc
    entry._written = written
    entry._expanded = frozenset(expanded)
    if isinstance(entry, MCPHttpServerConfig):
        entry._type_guessed = guessed
    return entry


_MODELS: dict[str, type[MCPServerConfig]] = {
    "stdio": MCPStdioServerConfig,
    "http": MCPHttpServerConfig,
    "sse": MCPSseServerConfig,
}


def _oauth(data: dict[str, Any], name: str) -> None:
    """``auth`` / ``oauth`` (every spelling in the module rules) as ``oauth``."""
    auth, oauth = data.pop("auth", None), data.pop("oauth", None)
    if oauth is None and auth is not None:
        oauth = True if auth == "oauth" else auth
    if isinstance(oauth, Mapping):
        settings = {_OAUTH_KEYS.get(str(k), str(k)): v for k, v in oauth.items()}
        if isinstance(settings.get("scopes"), str):
            settings["scopes"] = settings["scopes"].split()
        port = settings.pop("callbackPort", None)
        if port is not None and "redirect_uri" not in settings:
            settings["redirect_uri"] = f"http://localhost:{port}/callback"
        oauth = settings
    elif oauth is not None and not isinstance(oauth, bool):
        raise MCPConfigError(
            f'MCP server {name!r}: auth must be "oauth" or an object of OAuth settings '
            f"(got {type(oauth).__name__})",
            server=name,
            field="oauth",
        )
    data["oauth"] = oauth


def load_mcp_config(
    config: Mapping[str, Any] | str | os.PathLike[str],
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, MCPServerConfig]:
    """The enabled servers of an ``mcpServers`` config, by name (see module rules)."""
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        try:
            data: Any = orjson.loads(path.read_bytes())
        except OSError as exc:
            raise MCPConfigError(f"cannot read the MCP config {str(path)!r}: {exc}") from exc
        except orjson.JSONDecodeError as exc:
            raise MCPConfigError(f"the MCP config {str(path)!r} is not JSON: {exc}") from exc
    else:
        data = config
    if not isinstance(data, Mapping):
        raise MCPConfigError(f"an MCP config is a JSON object, got {type(data).__name__}")
    servers = data.get("mcpServers", data.get("servers", data))
    if not isinstance(servers, Mapping):
        raise MCPConfigError("'mcpServers' must be an object of server name -> entry")
    env = os.environ if environ is None else environ
    entries = {
        str(name): _entry(str(name), raw, env)
        for name, raw in servers.items()
        if not (isinstance(raw, Mapping) and raw.get("disabled") is True)  # not even checked
    }
    return {name: entry for name, entry in entries.items() if not entry.disabled}  # "true"

"""Where the OAuth state of remote MCP servers is kept: ``MCPTokenStore`` (what an app
implements: a keychain, a database, an encrypted file), ``InMemoryTokenStore`` (the default) and
``FileTokenStore`` (one JSON file, owner-only).

Rules:

* A store keeps one JSON object per key; the key is the server's URL without its query (tokens
  belong to the resource server, so two entries for the same URL share them). What is in the
  object is ``llmbridge.mcp.oauth.flow``'s business: the tokens (access, refresh, expiry) and
  the registered client (its id and secret). All of it is secret.
* Methods are async (a keychain or a database may block); a store may be shared by any number
  of servers and connections.
* ``_Storage`` is the ``mcp`` package's ``TokenStorage`` over one key of a store (what
  ``MCPOAuth`` hands the SDK's OAuth client).
* Reprs show no contents: only how many servers a store holds (memory) or its path (file).
* ``FileTokenStore`` writes a new file (mode 0600, in a directory created 0700) and renames it
  over the old one: a reader never sees half a file, and the tokens are never readable by
  other users, even for a moment. It never follows the old file's looser permissions.
"""

from __future__ import annotations

import copy
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio
import orjson

from ..errors import MCPError

__all__ = ["FileTokenStore", "InMemoryTokenStore", "MCPTokenStore"]


@runtime_checkable
class MCPTokenStore(Protocol):
    """Keeps the OAuth state of remote MCP servers, one JSON object per key."""

    async def load(self, key: str) -> dict[str, Any] | None:
        """What was saved under ``key`` (``None``: nothing yet)."""
        ...

    async def save(self, key: str, value: dict[str, Any]) -> None:
        """Keep ``value`` under ``key``, replacing what was there."""
        ...


class InMemoryTokenStore:
    """Tokens kept for the life of the process (the default: every new process authorizes
    again; pass a ``FileTokenStore`` or your own store to keep them)."""

    def __init__(self) -> None:
        self._data: dict[str, dict[str, Any]] = {}

    async def load(self, key: str) -> dict[str, Any] | None:
        value = self._data.get(key)
        return copy.deepcopy(value) if value is not None else None

    async def save(self, key: str, value: dict[str, Any]) -> None:
        self._data[key] = copy.deepcopy(value)

    async def delete(self, key: str) -> None:
        """Forget ``key`` (the next connection authorizes again)."""
        self._data.pop(key, None)

    def keys(self) -> list[str]:
        return list(self._data)

    def __repr__(self) -> str:
        return f"InMemoryTokenStore({len(self._data)} server(s))"


class FileTokenStore:
    """Tokens kept in one JSON file (``{key: value}``), readable by its owner only (0600).

    A plain file is as safe as the account it lives in: prefer the system keychain where
    there is one (implement ``MCPTokenStore`` over it)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self._lock = anyio.Lock()

    def __repr__(self) -> str:
        return f"FileTokenStore({str(self.path)!r})"

    def _read(self) -> dict[str, Any]:
        try:
            data = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, orjson.JSONDecodeError) as exc:
            raise MCPError(f"the MCP token file {str(self.path)!r} cannot be read: {exc}") from exc
        if not isinstance(data, dict):
            raise MCPError(f"the MCP token file {str(self.path)!r} is not a JSON object")
        return data

    def _write(self, data: dict[str, Any]) -> None:
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=folder)  # created 0600
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(orjson.dumps(data, option=orjson.OPT_INDENT_2))
                file.flush()
                os.fsync(file.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            _unlink_quietly(tmp)
            raise

    async def load(self, key: str) -> dict[str, Any] | None:
        async with self._lock:
            data = await anyio.to_thread.run_sync(self._read)
        value = data.get(key)
        return value if isinstance(value, dict) else None

    async def save(self, key: str, value: dict[str, Any]) -> None:
        def update() -> None:
            data = self._read()
            data[key] = value
            self._write(data)

        async with self._lock:
            await anyio.to_thread.run_sync(update)

    async def delete(self, key: str) -> None:
        """Forget ``key`` (the next connection authorizes again)."""

        def update() -> None:
            data = self._read()
            if data.pop(key, None) is not None:
                self._write(data)

        async with self._lock:
            await anyio.to_thread.run_sync(update)


class _Storage:
    """The SDK's ``TokenStorage`` over an app's ``MCPTokenStore`` (one key) for an ``MCPOAuth``
    (its ``store``, and its ``client_id`` / ``client_secret`` / ``redirect_uri`` for a client
    registered beforehand): keeps the absolute expiry beside the tokens, and notes every
    secret it sees."""

    def __init__(self, oauth: Any, key: str) -> None:
        self.oauth = oauth
        self.key = key
        self.secrets: set[str] = set()
        self.expires_at: float | None = None
        """When the stored access token expires (seconds since the epoch)."""
        self.lifetime: int | None = None
        """How long it was issued for (seconds)."""

    def __repr__(self) -> str:
        return f"<MCP OAuth storage for {self.key!r}>"

    async def _doc(self) -> dict[str, Any]:
        return dict(await self.oauth.store.load(self.key) or {})

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        saved = (await self._doc()).get("tokens")
        if not isinstance(saved, dict):
            return None
        self.expires_at = saved.get("expires_at")
        token = OAuthToken.model_validate({k: v for k, v in saved.items() if k != "expires_at"})
        self.lifetime = token.expires_in
        self._note(token.access_token, token.refresh_token)
        return token

    async def set_tokens(self, tokens: Any) -> None:
        self._note(tokens.access_token, tokens.refresh_token)
        saved = tokens.model_dump(mode="json", exclude_none=True)
        if tokens.expires_in is not None:
            self.expires_at = saved["expires_at"] = time.time() + int(tokens.expires_in)
            self.lifetime = int(tokens.expires_in)
        doc = await self._doc()
        doc["tokens"] = saved
        await self.oauth.store.save(self.key, doc)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        saved = (await self._doc()).get("client")
        if isinstance(saved, dict) and (
            self.oauth.client_id is None or saved.get("client_id") == self.oauth.client_id
        ):
            info = OAuthClientInformationFull.model_validate(saved)
        elif self.oauth.client_id is not None:  # registered beforehand
            secret = self.oauth.client_secret
            info = OAuthClientInformationFull(
                client_id=self.oauth.client_id,
                client_secret=secret,
                redirect_uris=[self.oauth.redirect_uri],
                token_endpoint_auth_method="client_secret_post" if secret else "none",
            )
        else:
            return None
        self._note(info.client_secret, getattr(info, "registration_access_token", None))
        return info

    async def set_client_info(self, client_info: Any) -> None:
        self._note(
            client_info.client_secret, getattr(client_info, "registration_access_token", None)
        )
        doc = await self._doc()
        doc["client"] = client_info.model_dump(mode="json", exclude_none=True)
        await self.oauth.store.save(self.key, doc)

    def _note(self, *values: str | None) -> None:
        self.secrets.update(v for v in values if v)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass

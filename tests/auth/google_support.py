"""A loopback OAuth token endpoint and a service-account file pointing at it.

The key is generated here (``cryptography``); google-auth signs its JWT assertion with it and
the endpoint checks that signature with the public key, as Google's would.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import SocketStream

from tests.loopback import read_request, serve

PROJECT = "sa-project-from-credentials"
EMAIL = "llmbridge-test@sa-project-from-credentials.iam.gserviceaccount.com"


def _b64(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


@dataclass
class TokenEndpoint:
    """Hands out ``google-access-token-0001-...``, ``-0002-``... (``lifetimes`` seconds each)."""

    public_key: object
    lifetimes: list[int] = field(default_factory=lambda: [3600])
    delay: float = 0.0
    issued: list[str] = field(default_factory=list)
    issued_at: list[float] = field(default_factory=list)  # time.monotonic() of each answer
    url: str = ""
    hold: Callable[[], Awaitable[object]] | None = None  # awaited before answering

    def verify(self, body: bytes) -> None:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        form = dict(urllib.parse.parse_qsl(body.decode()))
        assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        head, claims, signature = form["assertion"].split(".")
        self.public_key.verify(  # type: ignore[attr-defined]
            _b64(signature), f"{head}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()
        )
        payload = json.loads(_b64(claims))
        assert payload["iss"] == EMAIL
        assert payload["scope"] == "https://www.googleapis.com/auth/cloud-platform"

    async def answer(self, stream: SocketStream) -> None:
        while True:
            _, body = await read_request(stream)
            self.verify(body)
            await anyio.sleep(self.delay)
            if self.hold is not None:
                await self.hold()
            n = len(self.issued) + 1
            token = f"google-access-token-{n:04d}-abcdefghij"
            self.issued.append(token)
            self.issued_at.append(time.monotonic())
            life = self.lifetimes[min(n, len(self.lifetimes)) - 1]
            payload = json.dumps(
                {"access_token": token, "expires_in": life, "token_type": "Bearer"}
            )
            data = payload.encode()
            await stream.send(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(data)}\r\n\r\n".encode()
                + data
            )


@asynccontextmanager
async def token_endpoint(
    tmp_path: Path, *, lifetimes: list[int] | None = None, delay: float = 0.0
) -> AsyncIterator[tuple[TokenEndpoint, Path]]:
    """A running endpoint and a service-account JSON file whose ``token_uri`` is it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    endpoint = TokenEndpoint(key.public_key(), lifetimes or [3600], delay)
    async with serve(endpoint.answer) as url:
        endpoint.url = f"{url}/token"
        info = {
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "0123456789abcdef",
            "private_key": pem,
            "client_email": EMAIL,
            "client_id": "1234567890",
            "token_uri": endpoint.url,
        }
        path = tmp_path / "service-account.json"
        path.write_text(json.dumps(info))
        yield endpoint, path


GEMINI_SSE = (
    b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},'
    b'"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,'
    b'"totalTokenCount":2},"modelVersion":"gemini-2.5-flash"}\n\n'
)

"""What recording removes: request secrets and identifying response headers.

Rules: header names compare case-insensitively (credential names: ``is_secret_name``); redacted values become ``<redacted>`` so a
replay can still check that the header was sent. ``key=`` (and similar) query parameters are
redacted in URLs. Transport-level request headers (host, user-agent, ...) are not recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..providers.base import is_secret_name

__all__ = [
    "REDACTED",
    "Scrub",
    "redact_request_headers",
    "redact_response_headers",
    "redact_url",
    "scrub_bytes",
    "scrub_json",
    "secret_scrubber",
]

Scrub = Callable[[str], str]
"""Applied to every string a fixture writes (request, input, response body, events)."""

REDACTED = "<redacted>"

IDENTIFYING_RESPONSE_HEADERS = frozenset(
    {
        "set-cookie",
        "cf-ray",
        "openai-organization",
        "openai-project",
        "anthropic-organization-id",
        "x-request-id",
        "request-id",
        "x-goog-request-id",
        "apim-request-id",
        "x-amzn-requestid",
        "x-cloud-trace-context",
    }
)
TRANSPORT_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "accept-encoding",
        "connection",
        "user-agent",
        "accept",
        "transfer-encoding",
    }
)


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = [
        (k, REDACTED if is_secret_name(k) else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit(parts._replace(query=urlencode(query, safe="<>")))


def redact_request_headers(
    headers: Iterable[tuple[str, str]], *, redact: bool = True
) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers:
        low = name.lower()
        if low in TRANSPORT_HEADERS:
            continue
        out[low] = REDACTED if redact and is_secret_name(low) else value
    return out


def redact_response_headers(
    headers: Iterable[tuple[str, str]], *, redact: bool = True
) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers:
        low = name.lower()
        if low in ("content-length", "transfer-encoding", "content-encoding", "connection", "date"):
            continue
        out[low] = REDACTED if redact and low in IDENTIFYING_RESPONSE_HEADERS else value
    return out


def secret_scrubber(secrets: Iterable[str], extra: Scrub | None = None) -> Scrub:
    """A ``Scrub`` replacing each secret (8+ characters, longest first), then ``extra``."""
    ordered = sorted({s for s in secrets if len(s) >= 8}, key=len, reverse=True)

    def scrub(text: str) -> str:
        for secret in ordered:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return extra(text) if extra is not None else text

    return scrub


def scrub_json(value: Any, scrub: Scrub) -> Any:
    """``value`` (JSON-ready) with ``scrub`` applied to every string, keys included."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_json(k, scrub): scrub_json(v, scrub) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_json(v, scrub) for v in value]
    return value


def scrub_bytes(data: bytes, scrub: Scrub) -> bytes:
    """``data`` with ``scrub`` applied to its text (bytes that are not UTF-8 kept as they are)."""
    return scrub(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

"""What recording removes: request secrets and identifying response headers.

Rules: header names compare case-insensitively (credential names: ``is_secret_name``); redacted values become ``<redacted>`` so a
replay can still check that the header was sent. Request signing headers (``x-amz-date``,
``x-amz-content-sha256``: SigV4's clock and body hash) are redacted too: a replay never needs
a signature, or its date, to match. ``key=`` (and similar) query parameters are
redacted in URLs. Transport-level request headers (host, user-agent, ...) are not recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..secrets import REDACTED, Scrub, is_secret_name

__all__ = [
    "REDACTED",
    "Scrub",
    "redact_request_headers",
    "redact_response_headers",
    "redact_url",
    "scrub_bytes",
]


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
SIGNING_HEADERS = frozenset({"x-amz-date", "x-amz-content-sha256"})
"""Request headers of a signature that are not credentials themselves (redacted all the same:
they change with every signing)."""
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
        hidden = is_secret_name(low) or low in SIGNING_HEADERS
        out[low] = REDACTED if redact and hidden else value
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


def scrub_bytes(data: bytes, scrub: Scrub) -> bytes:
    """``data`` with ``scrub`` applied to its text (bytes that are not UTF-8 kept as they are)."""
    return scrub(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

"""Credentials: what counts as one, and removing known ones from anything shown or saved.

Rules: a header, query parameter or provider option carries a credential when its name says
so (``is_secret_name``); its values (and the token of ``Bearer <token>``, the access key id and
signature of a SigV4 ``Authorization``) are the secrets. Only strings of 8+ characters are
scrubbed (shorter ones would hit ordinary text), longest first, each replaced by ``<redacted>``,
in every form a message can hold them: as they are, stripped, and escaped the ways Python
(``repr`` of the str and of its bytes: ``b'Bearer sk-...\\n'`` in h11's refusal), JSON and URLs
write them. Used by the IO path (errors), recordings and reprs alike.

``clean_credential``: a key or token as loaded or applied, surrounding whitespace stripped (the
newline of ``open("key").read()`` or a mounted secret); one with a control character inside is a
``ConfigurationError`` that never shows it (an HTTP header cannot carry it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote

import orjson

from .errors import ConfigurationError

__all__ = [
    "REDACTED",
    "SECRET_QUERY_PARAMS",
    "SENSITIVE_HEADERS",
    "Scrub",
    "Secret",
    "clean_credential",
    "clean_named",
    "clean_secret",
    "is_secret_name",
    "json_strings",
    "named_secrets",
    "request_secrets",
    "scrub_json",
    "secret_forms",
    "secret_scrubber",
    "secret_values",
]

REDACTED = "<redacted>"

Scrub = Callable[[str], str]
"""A function applied to every string shown or saved (secrets, an app's own fields)."""

SECRET_QUERY_PARAMS = frozenset({"key", "api_key", "api-key", "access_token", "token", "sig"})
"""Query parameters that carry credentials (redacted in recordings, scrubbed from errors);
``sig`` is an Azure SAS signature."""

SENSITIVE_HEADERS = frozenset(
    {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"}
)
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "signature",
        "cookie",
    }
)


def is_secret_name(name: str) -> bool:
    """Whether a header, query parameter or provider option of this name carries a credential:
    the known ones, and any whose words include key, token, secret, password, auth, ...
    (``Ocp-Apim-Subscription-Key``, ``access_token``; not ``max_tokens``)."""
    low = name.lower()
    if low in SENSITIVE_HEADERS or low in SECRET_QUERY_PARAMS:
        return True
    return any(word in _SECRET_WORDS for word in re.split(r"[-_. ]+", low))


_SIGV4_PARTS = re.compile(r"(?:Credential=([^/,\s]+)|Signature=([0-9a-fA-F]+))")
"""The access key id and the signature of a SigV4 ``Authorization`` header value."""


def secret_values(value: Any) -> set[str]:
    """The credential strings in ``value`` (a header value like ``Bearer <token>`` gives both;
    ``AWS4-HMAC-SHA256 Credential=<key id>/..., Signature=<hex>`` its key id and signature)."""
    if isinstance(value, Secret):
        value = value.reveal()
    if not isinstance(value, str):
        return set()
    found = {value, value.partition(" ")[2]}
    if value.startswith("AWS4-"):
        found.update(part for match in _SIGV4_PARTS.findall(value) for part in match)
    return {v for v in found if len(v) >= 8}


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_credential(value: str, *, what: str = "the API key", provider: str | None = None) -> str:
    """``value`` stripped of surrounding whitespace; a ``ConfigurationError`` (naming ``what``,
    never the value) if a control character is left inside it."""
    cleaned = value.strip()
    if _CONTROL.search(cleaned):
        where = f" of provider {provider!r}" if provider else ""
        raise ConfigurationError(
            f"{what}{where} holds a control character (a line break, NUL, escape...) inside it, "
            "which no HTTP header can carry: check how it is read (the value is not shown)",
            provider=provider,
        )
    return cleaned


def clean_secret(value: Secret, *, what: str, provider: str | None = None) -> Secret:
    """``clean_credential`` for a ``Secret`` (the same object when nothing changed)."""
    cleaned = clean_credential(value.reveal(), what=what, provider=provider)
    return value if cleaned == value.reveal() else Secret(cleaned)


def clean_named(values: Mapping[str, Any], *, refuse: bool = True) -> dict[str, Any] | None:
    """``values`` (headers, options) with each credential-named string or ``Secret`` stripped;
    ``refuse``: one with a control character inside is a ``ConfigurationError``
    (``clean_credential``; options are only stripped: a PEM or JSON credential holds line
    breaks, and what reaches a header is checked when it is sent). ``None``: nothing changed."""
    cleaned: dict[str, Any] = {}
    for name, value in values.items():
        if is_secret_name(name) and isinstance(value, (str, Secret)):
            text = value.reveal() if isinstance(value, Secret) else value
            fixed = clean_credential(text, what=f"the {name!r} value") if refuse else text.strip()
            if fixed != text:
                value = Secret(fixed) if isinstance(value, Secret) else fixed
        cleaned[name] = value
    same = all(cleaned[name] is value for name, value in values.items())
    return None if same else cleaned


def secret_forms(secret: str) -> set[str]:
    """``secret`` as a message may hold it: as it is, stripped, escaped by ``repr`` (of the
    str, and of its UTF-8 bytes as h11 shows a refused header), by JSON and by URL quoting."""
    forms = {secret, secret.strip(), repr(secret)[1:-1], quote(secret, safe=""), quote(secret)}
    forms.add(repr(secret.encode("utf-8", "surrogateescape"))[2:-1])
    try:
        forms.add(orjson.dumps(secret).decode()[1:-1])
    except orjson.JSONEncodeError:  # a lone surrogate: JSON cannot hold it either
        pass
    return forms


class Secret:
    """A string that never shows itself in ``repr``/``str``/logs. ``reveal()`` gets it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def named_secrets(pairs: Iterable[tuple[str, Any]]) -> set[str]:
    """The secret values among ``(name, value)`` pairs (headers, query parameters, options)."""
    found: set[str] = set()
    for name, value in pairs:
        if is_secret_name(name):
            found |= secret_values(value)
    return found


def request_secrets(headers: Mapping[str, str], url: str, body: Any = None) -> set[str]:
    """The credentials a request carries: its secret-named headers and query parameters, and
    the secret-named strings of its JSON ``body`` (``authorization_token`` of a remote MCP
    server, ...)."""
    found = named_secrets(headers.items()) | named_secrets(json_strings(body))
    query = url.partition("?")[2].partition("#")[0]
    if query:
        found |= named_secrets(parse_qsl(query, keep_blank_values=True))
    return found


def json_strings(value: Any) -> Iterator[tuple[str, str]]:
    """Every ``(key, string value)`` pair of the JSON ``value``'s objects, nested ones included
    (a body's credentials are named like headers: ``authorization``, ``authorization_token``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                yield key, item
            else:
                yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def secret_scrubber(secrets: Iterable[str], extra: Scrub | None = None) -> Scrub:
    """A ``Scrub`` replacing each secret (8+ characters, longest first; each of its
    ``secret_forms``), then ``extra``. The forms are worked out at the first call (a request
    builds one for its errors, which are rare)."""
    given = {s for s in secrets if len(s) >= 8}
    ordered: list[str] = []

    def scrub(text: str) -> str:
        if given and not ordered:
            forms = {form for secret in given for form in secret_forms(secret)}
            ordered.extend(sorted({f for f in forms if len(f) >= 8}, key=len, reverse=True))
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

"""MCP resources as llmbridge shapes: what a server lists, what a read returns, and the parts
an app puts in a ``ChatMessage``.

Rules:

* ``MCPResource`` (a listed resource, or a ``resource_link`` a tool returned),
  ``MCPResourceTemplate`` (an RFC 6570 URI template; ``expand`` uses the ``mcp`` package's own
  ``UriTemplate``), ``MCPResourceContents`` (one item of a ``resources/read`` answer or an
  embedded resource: ``text`` or ``data`` bytes) and ``MCPResourceUpdate`` (a
  ``notifications/resources/updated``) are small frozen dataclasses naming their server.
* ``MCPResourceContents.part()`` follows ``llmbridge.mcp.content.resource_part``: text →
  ``TextPart`` (headed by the URI unless ``label=False``), ``image/*`` → ``ImagePart``,
  ``audio/*`` → ``AudioPart``, PDF and office documents → ``DocumentPart``, text-like bytes →
  ``TextPart``; any other binary becomes a short text note (URI, media type, size) while the
  bytes stay on ``.data`` for the app: no provider takes arbitrary binaries.
* Reads are bounded: ``resources/read`` answers larger than ``max_bytes`` (decoded; default
  ``DEFAULT_MAX_RESOURCE_BYTES``) raise ``MCPResourceTooLargeError`` before any base64 is
  decoded; in a tool result, the embedded resources that would pass that bound together are
  replaced by a text note (the call still succeeds). The SDK has received the message by
  then; the bound is on what llmbridge decodes and hands on.
* ``MCPToolOutput`` is the ``ToolOutput`` of an MCP tool call: besides its parts it keeps the
  result's resource links (``links``) and embedded resources (``resources``) as the shapes
  above, so an app can read a link (``read_resource(link.uri)``) or keep an embedded blob.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...tools.results import ToolOutput
from ..content import MCPPart, decoded_base64, field_of, resource_part
from ..errors import MCPError

__all__ = [
    "DEFAULT_MAX_RESOURCE_BYTES",
    "MCPResource",
    "MCPResourceContents",
    "MCPResourceTemplate",
    "MCPResourceTooLargeError",
    "MCPResourceUpdate",
    "MCPToolOutput",
    "contents_of",
    "resource_parts",
]

DEFAULT_MAX_RESOURCE_BYTES = 32 * 1024 * 1024
"""Bytes (decoded) one ``resources/read`` answer may hold unless the caller says otherwise."""


class MCPResourceTooLargeError(MCPError):
    """A resource's contents are larger than the read's ``max_bytes``."""

    uri: str | None = None
    size: int | None = None
    """The (decoded) size of the contents, as far as they were counted."""


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class MCPResource:
    """A resource a server lists (or a tool result links to): read it with ``read_resource``."""

    server: str | None
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    """Bytes of its raw contents, when the server says."""

    @classmethod
    def from_mcp(cls, item: Any, *, server: str | None = None) -> MCPResource:
        """From the SDK's ``Resource`` / ``ResourceLink`` (or a dict of the same)."""
        size = field_of(item, "size")
        return cls(
            server=server,
            uri=str(field_of(item, "uri")),
            name=str(field_of(item, "name") or field_of(item, "uri")),
            title=_text(field_of(item, "title")),
            description=_text(field_of(item, "description")),
            mime_type=_text(field_of(item, "mimeType", "mime_type")),
            size=int(size) if isinstance(size, int) else None,
        )


@dataclass(frozen=True, slots=True)
class MCPResourceTemplate:
    """A family of resources a server can read, named by an RFC 6570 URI template."""

    server: str | None
    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None

    @classmethod
    def from_mcp(cls, item: Any, *, server: str | None = None) -> MCPResourceTemplate:
        return cls(
            server=server,
            uri_template=str(field_of(item, "uriTemplate", "uri_template")),
            name=str(field_of(item, "name") or field_of(item, "uriTemplate", "uri_template")),
            title=_text(field_of(item, "title")),
            description=_text(field_of(item, "description")),
            mime_type=_text(field_of(item, "mimeType", "mime_type")),
        )

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order."""
        return list(self._parsed().variable_names)

    def expand(self, values: Mapping[str, str | Sequence[str]] | None = None, **kw: str) -> str:
        """The URI for ``values`` (``template.expand(id="7")``); an invalid template is an
        ``MCPError``."""
        return str(self._parsed().expand({**(values or {}), **kw}))

    def _parsed(self) -> Any:
        from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

        try:
            return UriTemplate.parse(self.uri_template)
        except InvalidUriTemplate as exc:
            raise MCPError(
                f"MCP server {self.server!r}: resource template {self.uri_template!r} is not a "
                f"valid URI template: {exc}"
            ) from exc


@dataclass(frozen=True, slots=True)
class MCPResourceContents:
    """One item of a resource's contents: ``text``, or ``data`` bytes (never both)."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    data: bytes | None = field(default=None, repr=False)
    server: str | None = None

    @property
    def size(self) -> int:
        """Bytes of the contents (text: UTF-8)."""
        return len(self.data) if self.data is not None else len((self.text or "").encode())

    def part(self, *, label: bool = True) -> MCPPart:
        """The contents as a message part (see the module rules)."""
        return resource_part(
            uri=self.uri, media_type=self.mime_type, text=self.text, data=self.data, label=label
        )

    def __repr__(self) -> str:
        what = f"{len(self.text)} chars" if self.text is not None else f"{self.size} bytes"
        return f"MCPResourceContents({self.uri!r}, {self.mime_type!r}, {what})"


@dataclass(frozen=True, slots=True)
class MCPResourceUpdate:
    """A server said a subscribed resource changed (read it again for its new contents)."""

    server: str | None
    uri: str
    """The resource that changed (may be a sub-resource of the subscribed URI)."""


def resource_parts(
    contents: MCPResourceContents | Iterable[MCPResourceContents], *, label: bool = True
) -> list[MCPPart]:
    """Message parts for a read's contents: ``ChatMessage.user("Summarise:", *parts)``."""
    if isinstance(contents, MCPResourceContents):
        contents = [contents]
    return [c.part(label=label) for c in contents]


def _too_large(uri: str, size: int, limit: int, server: str | None) -> MCPResourceTooLargeError:
    error = MCPResourceTooLargeError(
        f"MCP server {server!r}: resource {uri!r} holds more than {limit} bytes (at least "
        f"{size}); pass a larger max_bytes= to read it"
    )
    error.server, error.uri, error.size = server, uri, size
    return error


def contents_of(
    items: Iterable[Any], *, server: str | None = None, max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
) -> list[MCPResourceContents]:
    """``MCPResourceContents`` for the SDK's ``TextResourceContents`` /
    ``BlobResourceContents`` (or dicts), counting bytes before decoding any base64."""
    out: list[MCPResourceContents] = []
    total = 0
    for item in items:
        uri = str(field_of(item, "uri"))
        media = _text(field_of(item, "mimeType", "mime_type"))
        text = field_of(item, "text")
        if text is not None:
            total += len(str(text).encode())
            if total > max_bytes:
                raise _too_large(uri, total, max_bytes, server)
            out.append(MCPResourceContents(uri, media, text=str(text), server=server))
            continue
        blob = str(field_of(item, "blob") or "")
        if total + len(blob) * 3 // 4 - 2 > max_bytes:  # base64 is 4 chars per 3 bytes
            raise _too_large(uri, total + len(blob) * 3 // 4 - 2, max_bytes, server)
        data = decoded_base64(blob)
        if data is None:
            raise MCPError(f"MCP server {server!r}: resource {uri!r}: its blob is not valid base64")
        total += len(data)
        out.append(MCPResourceContents(uri, media, data=data, server=server))
    return out


@dataclass(slots=True, eq=False)
class MCPToolOutput(ToolOutput):
    """An MCP tool's result: ``content`` (what the model reads), ``data`` (structured
    content), and the resources it returned, kept whole for the app. One without links or
    resources equals the plain ``ToolOutput`` of the same content."""

    links: list[MCPResource] = field(default_factory=list)
    """The result's ``resource_link`` blocks (read one with ``read_resource(link.uri)``)."""
    resources: list[MCPResourceContents] = field(default_factory=list)
    """The result's embedded resources (``resource`` blocks), text or bytes."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolOutput):
            return NotImplemented
        mine = (self.content, self.is_error, self.data, self.links, self.resources)
        if isinstance(other, MCPToolOutput):
            return mine == (other.content, other.is_error, other.data, other.links, other.resources)
        return mine == (other.content, other.is_error, other.data, [], [])

    __hash__ = None  # type: ignore[assignment]  # mutable, as ToolOutput


def tool_resources(
    blocks: Sequence[Any], *, server: str | None, max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
) -> tuple[list[Any], list[MCPResource], list[MCPResourceContents]]:
    """A tool result's content blocks, its resource links and its embedded resources. The
    embedded resources share ``max_bytes``: one that would pass it is counted before its
    base64 is decoded and replaced, in the returned blocks, by a text block saying so (the
    rest of the result still arrives). An embedded blob that is not valid base64 is left out
    of the resources (its part says so)."""
    out: list[Any] = []
    links: list[MCPResource] = []
    embedded: list[MCPResourceContents] = []
    left = max_bytes
    for block in blocks:
        kind = field_of(block, "type")
        if kind == "resource_link":
            links.append(MCPResource.from_mcp(block, server=server))
        elif kind == "resource":
            try:
                [item] = contents_of([field_of(block, "resource")], server=server, max_bytes=left)
            except MCPResourceTooLargeError as exc:
                note = f"[resource {exc.uri}: about {exc.size} bytes, over the {max_bytes}-byte "
                out.append({"type": "text", "text": note + "limit for a tool result, not shown]"})
                continue
            except MCPError:
                pass
            else:
                embedded.append(item)
                left -= item.size
        out.append(block)
    return out, links, embedded

"""Provider-run tool specs ↔ Gemini's built-in tools and grounding (pure; Gemini and Vertex).

Follows https://ai.google.dev/gemini-api/docs/google-search, ``code-execution``,
``url-context``, ``file-search`` and ``google.genai.types`` (``Tool.google_search`` /
``code_execution`` / ``url_context`` / ``file_search``, ``GoogleSearch.exclude_domains``,
``FileSearch.file_search_store_names`` / ``top_k``, ``GroundingMetadata``). Rules:

* Each spec is one ``Tool`` entry of its own after the ``functionDeclarations`` one:
  ``WebSearch`` → ``{"googleSearch": {}}`` (``blocked_domains`` → ``excludeDomains`` on
  Vertex only: the Gemini API has no such field, google-genai refuses it there, so it is a
  ``ConfigurationError``;
  ``allowed_domains`` has no field: a ``ConfigurationError``; ``max_uses``, ``user_location``
  and ``context_size`` neither: warnings); ``WebFetch`` → ``{"urlContext": {}}`` (no domain
  filters: refused; ``max_uses`` a warning); ``CodeExecution`` → ``{"codeExecution": {}}``
  (no files: ``file_ids`` refused); ``FileSearch`` → ``{"fileSearch":
  {"fileSearchStoreNames", "topK"}}`` (Gemini API only).
* ``provider_options["gemini"]`` (or ``["vertex"]``) is merged into the inner object last.
* Decoding: ``groundingMetadata`` → one ``Citation`` per (grounding support, chunk with a URI:
  ``web``, or a ``retrievedContext`` that has one) pair (``cited_text`` the support's segment
  text), each only once per stream; a
  ``codeExecutionResult`` part → ``CodeOutput`` (``OUTCOME_OK`` output is stdout, any other
  outcome's is stderr; ``code`` the ``executableCode`` part before it); an ``inlineData`` image part → ``GeneratedImage``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...events import Citation, CodeOutput, GeneratedImage, StreamEvent
from ...hosted import (
    CodeExecution,
    FileSearch,
    HostedMCP,
    HostedTool,
    ImageGeneration,
    WebFetch,
    WebSearch,
    options_for,
    unsupported,
)

__all__ = ["GEMINI_TOOLS", "VERTEX_TOOLS", "PartViews", "encode_hosted", "grounding_citations"]

GEMINI_TOOLS = frozenset({"web_search", "web_fetch", "code_execution", "file_search"})
VERTEX_TOOLS = frozenset({"web_search", "web_fetch", "code_execution"})

_Encoded = tuple[dict[str, Any], list[str]]


def _web_search(tool: WebSearch, provider: str, vertex: bool) -> _Encoded:
    if tool.allowed_domains is not None:
        raise unsupported(
            tool,
            provider=provider,
            why="Google Search grounding has no allowed-domains filter (blocked_domains= works "
            "on vertex)",
        )
    inner: dict[str, Any] = {}
    if tool.blocked_domains is not None:
        if not vertex:  # GoogleSearch.exclude_domains: "not supported in Gemini API"
            raise unsupported(
                tool,
                provider=provider,
                why="blocked_domains: the Gemini API's Google Search has no exclude-domains "
                "filter (Vertex AI's has: use the vertex provider)",
            )
        inner["excludeDomains"] = list(tool.blocked_domains)
    dropped = [
        name for name in ("max_uses", "user_location", "context_size") if getattr(tool, name)
    ]
    warnings = [
        f"WebSearch {name}: Google Search grounding has no such setting; dropped"
        for name in dropped
    ]
    return {"googleSearch": inner}, warnings


def _web_fetch(tool: WebFetch, provider: str, vertex: bool) -> _Encoded:
    if tool.allowed_domains is not None or tool.blocked_domains is not None:
        raise unsupported(tool, provider=provider, why="URL context has no domain filters")
    warnings = []
    if tool.max_uses is not None:
        warnings.append("WebFetch max_uses: URL context has no such setting; dropped")
    return {"urlContext": {}}, warnings


def _code(tool: CodeExecution, provider: str, vertex: bool) -> _Encoded:
    if tool.file_ids:
        raise unsupported(
            tool, provider=provider, why="file_ids: Gemini's code execution takes no files"
        )
    return {"codeExecution": {}}, []


def _file_search(tool: FileSearch, provider: str, vertex: bool) -> _Encoded:
    inner: dict[str, Any] = {"fileSearchStoreNames": list(tool.vector_store_ids)}
    if tool.max_results is not None:
        inner["topK"] = tool.max_results
    return {"fileSearch": inner}, []


def _refuse(tool: ImageGeneration | HostedMCP, provider: str, vertex: bool) -> _Encoded:
    raise unsupported(tool, provider=provider)


_ENCODERS: dict[type[Any], Callable[[Any, str, bool], _Encoded]] = {
    WebSearch: _web_search,
    WebFetch: _web_fetch,
    CodeExecution: _code,
    FileSearch: _file_search,
    ImageGeneration: _refuse,
    HostedMCP: _refuse,
}


def encode_hosted(
    tools: Sequence[HostedTool], *, provider: str, vertex: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """One ``Tool`` entry per spec, and the warnings for options Gemini has no field for."""
    entries: list[dict[str, Any]] = []
    warnings: list[str] = []
    for tool in tools:
        entry, more = _ENCODERS[type(tool)](tool, provider, vertex)
        ((key, inner),) = entry.items()
        entries.append({key: {**inner, **options_for(tool, provider, "gemini")}})
        warnings.extend(more)
    return entries, warnings


# -- decoding ------------------------------------------------------------------------------
def grounding_citations(metadata: Any, seen: set[tuple[str, str | None]]) -> list[StreamEvent]:
    """``Citation`` events for the grounding supports of ``metadata`` not in ``seen`` yet."""
    if not isinstance(metadata, dict):
        return []
    chunks = metadata.get("groundingChunks")
    chunks = chunks if isinstance(chunks, list) else []
    out: list[StreamEvent] = []

    def cite(index: Any, text: str | None) -> None:
        if type(index) is not int or not 0 <= index < len(chunks):
            return
        chunk = chunks[index]
        web = (
            (chunk.get("web") or chunk.get("retrievedContext")) if isinstance(chunk, dict) else None
        )
        url = web.get("uri") if isinstance(web, dict) else None
        if not isinstance(url, str) or (url, text) in seen:
            return
        seen.add((url, text))
        title = web.get("title") if isinstance(web, dict) else None
        out.append(Citation(url, title if isinstance(title, str) else None, text))

    supports = metadata.get("groundingSupports")
    for support in supports if isinstance(supports, list) else ():
        if not isinstance(support, dict):
            continue
        segment = support.get("segment")
        text = segment.get("text") if isinstance(segment, dict) else None
        indices = support.get("groundingChunkIndices")
        for index in indices if isinstance(indices, list) else ():
            cite(index, text if isinstance(text, str) else None)
    return out


def _inline(data: Any) -> list[StreamEvent]:
    if not isinstance(data, dict):
        return []
    mime, b64 = data.get("mimeType"), data.get("data")
    if not isinstance(mime, str) or not mime.startswith("image/") or not isinstance(b64, str):
        return []
    return [GeneratedImage(b64=b64, media_type=mime)]


class PartViews:
    """Typed events of the provider-made parts of one stream (it remembers the code last run)."""

    __slots__ = ("_code",)

    def __init__(self) -> None:
        self._code: str | None = None

    def events(self, part: dict[str, Any]) -> list[StreamEvent]:
        """The typed events of ``part`` (besides its ``ProviderItem``), if any."""
        if "executableCode" in part:
            code = part["executableCode"]
            text = code.get("code") if isinstance(code, dict) else None
            self._code = text if isinstance(text, str) else None
            return []
        if "codeExecutionResult" in part:
            result = part["codeExecutionResult"]
            if not isinstance(result, dict):
                return []
            output = result.get("output")
            output = output if isinstance(output, str) else ""
            code, self._code = self._code, None
            if result.get("outcome") == "OUTCOME_OK":
                return [CodeOutput(stdout=output, code=code)]
            return [CodeOutput(stderr=output, code=code)]
        if "inlineData" in part:
            return _inline(part["inlineData"])
        return []

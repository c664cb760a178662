"""``WebSearch`` on Chat Completions servers that run it, and ``url_citation`` annotations (pure).

Follows https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat (the openai
SDK's ``completion_create_params.WebSearchOptions``, ``ChatCompletionChunk`` delta
``annotations``) and https://openrouter.ai/docs/features/web-search (the
``openrouter:web_search`` server tool, as a real recorded request sends it). Rules:

* ``Preset.web_search`` says how a server runs ``lb.WebSearch``: ``options`` (``openai``: only
  its search models, a model name holding ``search``, take ``web_search_options``),
  ``openrouter`` (any model: ``{"type": "openrouter:web_search", "parameters": {...}}``
  appended to ``tools``) or ``none``. ``search_tools`` gives the provider's capabilities, so
  every other spec, preset and model is refused before sending.
* ``options``: ``search_context_size`` and ``user_location`` (``{"type": "approximate",
  "approximate": {...}}``); ``max_uses`` has no field (a warning). ``openrouter``:
  ``max_uses`` and ``search_context_size``; a location has no field (a warning). Domain
  filters have no field in either: a ``ConfigurationError``. ``provider_options`` under the
  provider's name is merged last (into ``web_search_options`` / the tool's ``parameters``).
* A delta's ``annotations`` ``url_citation`` → ``Citation`` (``cited_text`` where the server
  sends the cited ``content``, as OpenRouter does: this decoder keeps no text buffer; an empty
  title is ``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...events import Citation, StreamEvent
from ...hosted import HostedTool, WebSearch, options_for, unsupported

__all__ = ["OPENROUTER_SEARCH", "add_web_search", "annotation_citations", "search_tools"]

OPENROUTER_SEARCH = "openrouter:web_search"
_SEARCH = frozenset({"web_search"})


def search_tools(model: str, *, style: str) -> frozenset[str]:
    """The hosted spec types ``model`` runs on a preset of this ``web_search`` style."""
    if style == "openrouter" or (style == "options" and "search" in model):
        return _SEARCH
    return frozenset()


def add_web_search(
    body: dict[str, Any], tools: Sequence[HostedTool], *, style: str, provider: str
) -> list[str]:
    """Put the ``WebSearch`` spec into ``body`` the preset's way; return the warnings."""
    warnings: list[str] = []
    for tool in tools:
        if not isinstance(tool, WebSearch) or style == "none":
            raise unsupported(tool, provider=provider)
        if tool.allowed_domains is not None or tool.blocked_domains is not None:
            raise unsupported(
                tool,
                provider=provider,
                why="its web search takes no domain filters (openai-responses and anthropic do)",
            )
        extra = options_for(tool, provider)
        if style == "openrouter":
            params: dict[str, Any] = {}
            if tool.max_uses is not None:
                params["max_uses"] = tool.max_uses
            if tool.context_size is not None:
                params["search_context_size"] = tool.context_size
            if tool.user_location is not None:
                warnings.append(
                    "WebSearch user_location: OpenRouter's web search has no such setting; dropped"
                )
            entry = {"type": OPENROUTER_SEARCH, "parameters": {**params, **extra}}
            body["tools"] = [*body.get("tools", []), entry]
            continue
        options: dict[str, Any] = {}
        if tool.context_size is not None:
            options["search_context_size"] = tool.context_size
        if tool.user_location is not None:
            place = tool.user_location.model_dump(exclude_none=True)
            options["user_location"] = {"type": "approximate", "approximate": place}
        if tool.max_uses is not None:
            warnings.append(
                f"WebSearch max_uses={tool.max_uses}: Chat Completions has no such setting; dropped"
            )
        body["web_search_options"] = {**options, **extra}
    return warnings


def annotation_citations(annotations: Any) -> list[StreamEvent]:
    """``Citation`` events for a delta's ``url_citation`` annotations."""
    out: list[StreamEvent] = []
    for note in annotations if isinstance(annotations, list) else ():
        cite = note.get("url_citation") if isinstance(note, dict) else None
        if not isinstance(cite, dict) or not isinstance(cite.get("url"), str):
            continue
        title, text = cite.get("title"), cite.get("content")
        out.append(
            Citation(
                cite["url"],
                title if isinstance(title, str) and title else None,
                text if isinstance(text, str) else None,
            )
        )
    return out

"""Ranking tools for a query: the search behind a client-executed ``ToolSearch``.

Rules:

* Pure and deterministic: the same query and tools give the same order (ties keep the
  tools' order). Linear in the catalog's size; no index is kept between searches.
* ``bm25``: Okapi BM25 (k1 1.2, b 0.75) over each tool's name (counted twice: names are the
  strongest signal), description and parameter names. Words are split at anything not a
  letter or digit and at camelCase humps, lower-cased, a plural ``s`` dropped, and a few
  English stop words skipped. Only tools sharing a word with the query score.
* ``regex``: the query is a regular expression (Python syntax, case-insensitive) searched in
  ``name + "\\n" + description``; one that does not compile, or is over 200 characters (the
  limit Anthropic puts on its regex search), is matched as plain text instead. Matches keep
  the tools' order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from ..tool_spec import ToolSpec

__all__ = ["rank_tools", "words"]

MAX_PATTERN = 200
_K1 = 1.2
_B = 0.75
_SPLIT = re.compile(r"[^0-9A-Za-z]+")
_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "i", "in", "is", "it",
     "me", "my", "of", "on", "or", "that", "the", "this", "to", "tool", "tools", "with"}
)  # fmt: skip


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The search words of ``text`` (see module rules)."""
    out: list[str] = []
    for chunk in _SPLIT.split(text):
        for hump in _HUMPS.findall(chunk):
            word = hump.lower()
            if word not in _STOP:
                out.append(_stem(word))
    return out


def _document(spec: ToolSpec) -> list[str]:
    name = words(spec.name)
    properties = spec.parameters.get("properties")
    params = " ".join(properties) if isinstance(properties, dict) else ""
    return name + name + words(spec.description) + words(params)


def _bm25(query: str, specs: Sequence[ToolSpec]) -> list[tuple[float, int]]:
    wanted = set(words(query))
    if not wanted or not specs:
        return []
    docs = [Counter(_document(spec)) for spec in specs]
    lengths = [sum(d.values()) for d in docs]
    average = (sum(lengths) / len(docs)) or 1.0
    n = len(docs)
    idf = {
        w: math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for w in wanted
        for df in [sum(1 for d in docs if w in d)]
    }
    scored: list[tuple[float, int]] = []
    for i, (doc, length) in enumerate(zip(docs, lengths, strict=True)):
        score = 0.0
        for w in wanted:
            tf = doc.get(w, 0)
            if tf:
                score += idf[w] * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / average))
        if score > 0:
            scored.append((score, i))
    return scored


def _regex(query: str, specs: Sequence[ToolSpec]) -> list[tuple[float, int]]:
    pattern: re.Pattern[str]
    try:
        if len(query) > MAX_PATTERN:
            raise re.error("too long")
        pattern = re.compile(query, re.IGNORECASE)
    except re.error:
        pattern = re.compile(re.escape(query[:MAX_PATTERN]), re.IGNORECASE)
    return [
        (1.0, i)
        for i, spec in enumerate(specs)
        if pattern.search(f"{spec.name}\n{spec.description}")
    ]


def rank_tools(
    query: str,
    specs: Sequence[ToolSpec],
    *,
    limit: int = 5,
    algorithm: Literal["bm25", "regex"] = "bm25",
) -> list[ToolSpec]:
    """The tools of ``specs`` that match ``query``, best first, at most ``limit``."""
    scored = _regex(query, specs) if algorithm == "regex" else _bm25(query, specs)
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [specs[i] for _, i in scored[:limit]]

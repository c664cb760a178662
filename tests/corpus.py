"""Access to ``../shared/corpus`` (real recorded streams); tests skip cleanly without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def entries(category: str, *, framing: str | None = None) -> list[Any]:
    """pytest params (one per recording of ``category``), or one skipped param if absent."""
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus is absent"))]
    items = [e for e in json.loads(manifest.read_text()) if e["category"] == category]
    if framing is not None:
        items = [e for e in items if e["framing"] == framing]
    return [pytest.param(e, id=e["file"]) for e in items]


def body(entry: dict[str, Any]) -> bytes:
    return (CORPUS / entry["file"]).read_bytes()


def expected(entry: dict[str, Any]) -> dict[str, Any] | None:
    name = entry.get("expected_file")
    return json.loads((CORPUS / name).read_text()) if name else None


def request_body(entry: dict[str, Any]) -> dict[str, Any] | None:
    name = entry.get("request_file")
    return json.loads((CORPUS / name).read_text()) if name else None

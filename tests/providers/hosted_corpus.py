"""Shared readers for the hosted-tool corpus tests (``../shared/corpus``, read at test time)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.testing import iter_sse
from tests.corpus import CORPUS, needed

__all__ = ["CORPUS", "body_of", "of_type", "payloads", "recorded_request", "skip_without_corpus"]

skip_without_corpus = needed


def body_of(name: str) -> bytes:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{name} is not in the corpus")
    return path.read_bytes()


def payloads(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(d) for _, d in iter_sse(body) if d and d != "[DONE]"]


def of_type(events: list[lb.StreamEvent], kind: type) -> list[Any]:
    return [e for e in events if type(e) is kind]


def recorded_request(stem: str) -> dict[str, Any]:
    path = CORPUS / f"{stem}.request.json"
    if not path.exists():
        pytest.skip(f"{stem}.request.json is not in the corpus")
    data: dict[str, Any] = json.loads(path.read_text())
    return data

"""Category K of the recorded corpus: real embedding and rerank answers recorded by other
projects, decoded by llmbridge and compared with what the official SDK read from the same bytes
(``expected.json``: count, dimension, the sha256 of every vector as float32; rerank indices and
scores), and our request bodies compared with the recorded ones where the options are known."""

from __future__ import annotations

import array
import hashlib
import json
from typing import Any

import pytest

from llmbridge.embeddings import bedrock, codecs, rerank
from llmbridge.embeddings.options import EmbedOptions
from llmbridge.embeddings.wire import Target
from llmbridge.stream.answer import Answer
from tests.corpus import CORPUS, manifest, params, present

_FAMILY = {
    "openai.embeddings": "openai",
    "openai_compatible.embeddings": "openai-compatible",
    "cohere.v1.embed": "cohere",
    "cohere.v2.embed": "cohere",
    "gemini.embed_content": "gemini",
    "vertex.predict_embeddings": "vertex",
    "ollama.embed": "ollama-native",
}


def _entries(kind: str) -> list[Any]:
    if not present():
        return params([])
    found = [e for e in manifest() if e["category"] == "K" and e.get("kind") == kind]
    return [pytest.param(e, id=e["file"]) for e in found]


def _family(entry: dict[str, Any]) -> str:
    if entry["api"] == "bedrock.invoke_model":
        model = (entry.get("model") or entry["uri"].split("/model/")[1].split("/")[0]).replace(
            "%3A", ":"
        )
        return bedrock.family_of(model, provider="bedrock")
    return _FAMILY[entry["api"]]


def _sha(vectors: list[list[float]]) -> str:
    flat = array.array("f", [x for v in vectors for x in v])
    return hashlib.sha256(flat.tobytes()).hexdigest()


@pytest.mark.parametrize("entry", _entries("embeddings"))
def test_recorded_embeddings_decode_to_the_sdks_vectors(entry: dict[str, Any]) -> None:
    raw = (CORPUS / entry["file"]).read_bytes()
    body = json.loads(raw)
    expected = json.loads((CORPUS / entry["expected_file"]).read_text())
    if entry["api"] == "ollama.embed" and "embeddings" not in body:
        pytest.skip("the older /api/embeddings answer (one 'embedding'): not an endpoint we call")
    family = _family(entry)
    dtype = expected.get("dtype") or "float"
    options = EmbedOptions(output_type=dtype)
    target = Target(provider=family, family=family, prefix="https://x")
    answer = Answer(200, {}, raw, family, "https://x")  # the recorded bytes, as they came
    response = codecs.decode(
        answer, target=target, model="m", options=options, count=expected["count"]
    )
    assert len(response.vectors) == expected["count"]
    assert response.dimensions == expected["dimension"]
    assert response.vectors[0][:4] == pytest.approx(expected["first4"], rel=1e-6)
    assert _sha(response.vectors) == expected["float32_sha256"]
    tokens = (expected.get("usage") or {}).get("prompt_tokens")
    if isinstance(tokens, int) and family.startswith("openai"):
        assert response.usage is not None and response.usage.input_tokens == tokens


@pytest.mark.parametrize("entry", _entries("rerank"))
def test_recorded_rerank_answers_rank_as_recorded(entry: dict[str, Any]) -> None:
    body = json.loads((CORPUS / entry["file"]).read_text())
    expected = json.loads((CORPUS / entry["expected_file"]).read_text())
    target = Target(provider="p", family="cohere", prefix="https://x")
    documents = [f"doc {i}" for i in range(100)]
    ranked = rerank.decode(body, target=target, model="m", documents=documents)
    assert [r.index for r in ranked.results] == expected["indices"]
    assert [r.score for r in ranked.results] == pytest.approx(expected["scores"])
    assert all(r.document == f"doc {r.index}" for r in ranked.results)

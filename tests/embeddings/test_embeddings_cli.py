"""``llmbridge embed MODEL TEXT...``: dimensions and first values per text; ``--json`` lines."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from llmbridge.cli import main


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        data = [
            {"index": i, "embedding": [0.5, -0.25, 1.0, 2.0, 3.0, 4.0]}
            for i in range(len(body["input"]))
        ]
        return httpx.Response(200, json={"data": data, "model": "m", "usage": {"prompt_tokens": 4}})

    class FakeClient(httpx.AsyncClient):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(transport=httpx.MockTransport(answer))

    monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
    return sent


def test_embed_prints_dimensions_and_first_values(
    served: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["embed", "llamacpp:gemma", "hello", "world", "--dimensions", "6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "0\t6 dimensions\t[0.5, -0.25, 1, 2, 3, ...]",
        "1\t6 dimensions\t[0.5, -0.25, 1, 2, 3, ...]",
    ]
    assert served[0]["input"] == ["hello", "world"] and served[0]["dimensions"] == 6


def test_embed_json_prints_whole_vectors_and_usage(
    served: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["embed", "llamacpp:gemma", "hi", "--json", "--input-type", "query"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"index": 0, "dimensions": 6, "vector": [0.5, -0.25, 1.0, 2.0, 3.0, 4.0]}
    assert lines[1]["input_tokens"] == 4 and "input_type='query'" in lines[1]["warnings"][0]


def test_embed_errors_print_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["embed", "llamacpp:gemma", "hi", "--output-type", "int8"]) == 1
    err = capsys.readouterr().err
    assert "output_type='int8'" in err and "cohere" in err

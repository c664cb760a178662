"""``llmbridge batch submit --embed``: an embeddings batch from a JSONL file of
``{"id", "input"}`` lines; ``results`` reads the job (known by its endpoint) as embeddings."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from llmbridge.cli import main
from tests.batch.servers import OpenAIServer
from tests.loopback import ThreadedServer

MODEL = "openai:text-embedding-3-small"


def test_the_cli_submits_an_embeddings_batch_and_prints_its_vectors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = OpenAIServer(polls_to_end=1)
    common = ["--base-url", ThreadedServer(server.handle_socket).url + "/v1", "--api-key", "k"]
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"id": "d1", "input": "two words"}\n{"id": "d2", "input": ["a", "bc"]}\n')
    assert main(["batch", "submit", MODEL, str(inputs), "--embed", "--wait", *common]) == 0
    assert "completed" in capsys.readouterr().out
    (job_id,) = server.jobs
    assert server.jobs[job_id]["request"]["endpoint"] == "/v1/embeddings"
    assert main(["batch", "results", MODEL, job_id, *common, "--json"]) == 0
    rows = {r["id"]: r for r in map(orjson.loads, capsys.readouterr().out.splitlines())}
    assert rows["d1"]["vectors"] == [[9.0, 0.0]]
    assert rows["d2"]["vectors"] == [[1.0, 0.0], [2.0, 1.0]]
    assert main(["batch", "results", MODEL, job_id, *common]) == 0
    assert "d2\tsucceeded\t2 vectors of 2" in capsys.readouterr().out


def test_a_bad_embeddings_line_is_refused_by_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "input": "x"}\n{"id": "b", "input": 3}\n')
    assert main(["batch", "submit", MODEL, str(bad), "--embed", "--api-key", "k"]) == 2
    assert "line 2" in capsys.readouterr().err

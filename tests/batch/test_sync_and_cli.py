"""The blocking twin and the CLI, end to end against the loopback OpenAI and Anthropic batch
servers (plain threads, outside every loop): submit, status, results, cancel."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import llmbridge as lb
from llmbridge.cli import main
from tests.batch.servers import AnthropicServer, OpenAIServer
from tests.loopback import ThreadedServer


def test_sync_client_runs_the_whole_lifecycle() -> None:
    server = OpenAIServer(polls_to_end=1)
    threaded = ThreadedServer(server.handle_socket)
    requests = [lb.BatchRequest(i, [lb.ChatMessage.user(i)]) for i in ("x", "y-fail")]
    with lb.SyncClient(
        providers={"openai": {"api_key": "k", "base_url": threaded.url + "/v1"}}
    ) as c:
        job = c.batch("openai:gpt-4.1-mini", requests)
        heard: list[str] = []
        job = c.batch_wait(
            job,
            poll_interval=0.001,
            max_interval=0.001,
            on_progress=lambda j: heard.append(j.status),
        )
        results = {r.id: r for r in c.batch_results(job)}
        again = c.batch_status(c.batch_job("openai:gpt-4.1-mini", job.id))
    assert heard[-1] == "completed" and again.status == "completed"
    assert results["x"].response is not None and results["x"].response.text == "echo: x"
    assert isinstance(results["y-fail"].error, lb.InvalidRequestError)


@pytest.mark.parametrize(
    ("kind", "model"),
    [(OpenAIServer, "openai:gpt-4.1-mini"), (AnthropicServer, "anthropic:claude-haiku-4-5")],
)
def test_the_cli_submits_waits_and_prints_results(
    kind: type[OpenAIServer], model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = kind(polls_to_end=1)
    threaded = ThreadedServer(server.handle_socket)
    base = threaded.url + ("/v1" if kind is OpenAIServer else "")
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        '{"id": "q1", "prompt": "one"}\n\n'
        '{"id": "q2-fail", "messages": [{"role": "user", "content": "two"}], "max_tokens": 9}\n'
    )
    common = ["--base-url", base, "--api-key", "sk-cli-key"]
    assert main(["batch", "submit", model, str(prompts), *common]) == 0
    job_id = capsys.readouterr().out.strip()
    assert job_id and "sk-cli-key" not in job_id
    assert main(["batch", "status", model, job_id, *common, "--json"]) == 0
    status = orjson.loads(capsys.readouterr().out)
    assert status["id"] == job_id and status["counts"]["total"] in (0, 2)
    assert main(["batch", "status", model, job_id, *common]) == 0
    assert "completed" in capsys.readouterr().out
    assert main(["batch", "results", model, job_id, *common, "--json"]) == 0
    rows = {r["id"]: r for r in map(orjson.loads, capsys.readouterr().out.splitlines())}
    assert rows["q1"]["status"] == "succeeded" and rows["q1"]["text"] == "echo: one"
    assert rows["q2-fail"]["status"] == "errored" and rows["q2-fail"]["error"]
    assert main(["batch", "results", model, job_id, *common]) == 0
    assert "q1\tsucceeded\techo: one" in capsys.readouterr().out


def test_the_cli_cancels_and_refuses_a_bad_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = OpenAIServer(polls_to_end=3)
    threaded = ThreadedServer(server.handle_socket)
    common = ["--base-url", threaded.url + "/v1", "--api-key", "k"]
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text('{"id": "a", "prompt": "x"}\n')
    bad.write_text('{"id": "a", "prompt": "x"}\n{"prompt": "no id"}\n')
    assert main(["batch", "submit", "openai:gpt-4.1-mini", str(bad), *common]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main(["batch", "submit", "openai:gpt-4.1-mini", str(good), *common]) == 0
    job_id = capsys.readouterr().out.strip()
    assert main(["batch", "cancel", "openai:gpt-4.1-mini", job_id, *common]) == 0
    assert "cancel" in capsys.readouterr().out

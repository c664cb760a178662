"""What ``client.batch()`` sends, held against the official SDKs' own types: OpenAI's
``BatchCreateParams`` and chat ``CompletionCreateParamsNonStreaming`` for every input line,
Anthropic's ``BatchCreateParams`` (each ``params`` a ``MessageCreateParamsNonStreaming``), and
google-genai's ``Content`` / ``GenerationConfig`` for each inline request; the loopback servers'
answers are held against ``openai.types.Batch``, ``ChatCompletion``, ``MessageBatch``,
``MessageBatchIndividualResponse`` and ``google.genai.types.BatchJob`` the same way, so the
lifecycle tests talk to servers shaped like the real ones."""

from __future__ import annotations

import orjson
import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from tests.batch.servers import AnthropicServer, GeminiServer, OpenAIServer, running

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai_types = pytest.importorskip("google.genai.types")

pytestmark = [pytest.mark.anyio, pytest.mark.io]

TOOL = lb.ToolSpec.from_json_schema(
    "get_weather",
    "The weather in a city",
    {"type": "object", "properties": {"city": {"type": "string"}}},
)


def requests() -> list[lb.BatchRequest]:
    return [
        lb.BatchRequest("plain", [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("hi")]),
        lb.BatchRequest("tools", [lb.ChatMessage.user("Paris?")], tools=[TOOL], max_tokens=50),
        lb.BatchRequest(
            "fmt",
            [lb.ChatMessage.user("a number")],
            temperature=0.2,
            response_format={
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
        ),
    ]


async def test_openai_lines_and_job_match_the_sdk_types() -> None:
    from openai.types import Batch, BatchCreateParams
    from openai.types.chat import ChatCompletion
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    server = OpenAIServer(polls_to_end=1)
    async with (
        running(server) as url,
        lb.Client(providers={"openai": {"api_key": "k", "base_url": url + "/v1"}}) as c,
    ):
        job = await c.batch("openai:gpt-4.1-mini", requests())
        await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    create = next(s for s in server.seen if s.path.endswith("/batches"))
    TypeAdapter(BatchCreateParams).validate_python(orjson.loads(create.body))
    (state,) = server.jobs.values()
    params = TypeAdapter(CompletionCreateParamsNonStreaming)
    for line in state["lines"]:
        assert set(line) == {"custom_id", "method", "url", "body"}
        params.validate_python(line["body"])
        assert line["body"].get("stream") in (None, False)
    by_id = {line["custom_id"]: line["body"] for line in state["lines"]}
    assert by_id["tools"]["tools"][0]["function"]["name"] == "get_weather"
    assert by_id["fmt"]["response_format"]["type"] == "json_schema"
    for job_id in server.jobs:
        Batch.model_validate(server.batch(job_id))
    output = server.files[state["output_file_id"]]
    for raw in output.splitlines():
        ChatCompletion.model_validate(orjson.loads(raw)["response"]["body"])


async def test_anthropic_body_and_results_match_the_sdk_types() -> None:
    from anthropic.types.messages import (
        BatchCreateParams,
        MessageBatch,
        MessageBatchIndividualResponse,
    )

    server = AnthropicServer(polls_to_end=1)
    async with (
        running(server) as url,
        lb.Client(providers={"anthropic": {"api_key": "k", "base_url": url}}) as c,
    ):
        job = await c.batch("anthropic:claude-haiku-4-5", requests())
        await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    create = next(s for s in server.seen if s.path.endswith("/messages/batches"))
    body = orjson.loads(create.body)
    TypeAdapter(BatchCreateParams).validate_python(body)
    assert [r["custom_id"] for r in body["requests"]] == ["plain", "tools", "fmt"]
    assert all("stream" not in r["params"] for r in body["requests"])
    assert body["requests"][0]["params"]["system"]
    (job_id,) = server.jobs
    MessageBatch.model_validate(server.batch(job_id))
    for request in server.jobs[job_id]["requests"]:
        MessageBatchIndividualResponse.model_validate(server.result(request, False))


async def test_gemini_inline_requests_match_the_sdk_types() -> None:
    server = GeminiServer(polls_to_end=1)
    async with (
        running(server) as url,
        lb.Client(providers={"gemini": {"api_key": "k", "base_url": url}}) as c,
    ):
        job = await c.batch("gemini:gemini-2.5-flash", requests())
        await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    create = next(s for s in server.seen if s.path.endswith(":batchGenerateContent"))
    assert create.path.startswith("/v1beta/models/gemini-2.5-flash")
    inline = orjson.loads(create.body)["batch"]["input_config"]["requests"]["requests"]
    for item in inline:
        for content in item["request"]["contents"]:
            genai_types.Content.model_validate(content)
        if "generationConfig" in item["request"]:
            genai_types.GenerationConfig.model_validate(item["request"]["generationConfig"])
    assert [i["metadata"]["key"] for i in inline] == ["plain", "tools", "fmt"]
    (job_id,) = server.jobs
    answer = server.batch(job_id)
    for item in answer["metadata"]["output"]["inlinedResponses"]["inlinedResponses"]:
        genai_types.GenerateContentResponse.model_validate(item["response"])

"""The providers of issue 46 items 2 and 5 that came last, on every loop: Bedrock's agent
runtime ``Rerank`` (SigV4 as ``bedrock``, its body validated and serialized by botocore's
``bedrock-agent-runtime`` model), Hugging Face TEI (``tei:``: ``/embed``, ``/rerank``), and
Voyage's multimodal embeddings (``/v1/multimodalembeddings`` with ``ImagePart`` inputs)."""

from __future__ import annotations

import base64
import struct
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb

pytestmark = [pytest.mark.anyio, pytest.mark.loops]

AWS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "secret",
    "region": "eu-central-1",
}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


class Server:
    def __init__(self, answer: Any, headers: dict[str, str] | None = None) -> None:
        self.answer, self.headers = answer, headers or {}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = (
            self.answer(orjson.loads(request.content)) if callable(self.answer) else self.answer
        )
        return httpx.Response(200, json=answer, headers=self.headers)

    @property
    def body(self) -> Any:
        return orjson.loads(self.requests[-1].content)


def client_for(server: Server, name: str, config: dict[str, Any]) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={name: config},
        retry=lb.RetryPolicy(max_attempts=1),
    )


async def test_bedrock_rerank_is_the_agent_runtimes_rerank_as_botocore_describes_it() -> None:
    botocore = pytest.importorskip("botocore.session")
    from botocore.serialize import create_serializer
    from botocore.validate import ParamValidator

    answer = {
        "results": [
            {"index": 2, "relevanceScore": 0.75},
            {"index": 0, "relevanceScore": 0.5},
        ]
    }
    server = Server(answer, headers={"x-amzn-requestid": "rq-1"})
    async with client_for(server, "bedrock", AWS) as client:
        got = await client.rerank("bedrock:amazon.rerank-v1:0", "q", ["a", "b", "c"], top_n=2)
    sent = server.requests[0]
    assert str(sent.url) == "https://bedrock-agent-runtime.eu-central-1.amazonaws.com/rerank"
    assert "Credential=AKIAIOSFODNN7EXAMPLE/" in sent.headers["authorization"]
    assert "/eu-central-1/bedrock/aws4_request" in sent.headers["authorization"]
    model = botocore.get_session().get_service_model("bedrock-agent-runtime")
    operation = model.operation_model("Rerank")
    report = ParamValidator().validate(server.body, operation.input_shape)
    assert not report.has_errors(), report.generate_report()
    serialized = create_serializer("rest-json").serialize_to_request(server.body, operation)
    assert orjson.loads(serialized["body"]) == server.body
    assert serialized["url_path"] == sent.url.path
    config = server.body["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["modelConfiguration"]["modelArn"] == (
        "arn:aws:bedrock:eu-central-1::foundation-model/amazon.rerank-v1:0"
    )
    assert config["numberOfResults"] == 2
    assert [(r.index, r.score, r.document) for r in got.results] == [(2, 0.75, "c"), (0, 0.5, "a")]
    assert got.request_id == "rq-1"


async def test_tei_embeds_through_embed_with_its_token_header() -> None:
    server = Server(lambda body: [[float(len(t)), 0.5] for t in body["inputs"]])
    server.headers = {"x-compute-tokens": "9"}
    async with client_for(server, "tei", {"base_url": "http://tei.local:8080"}) as client:
        got = await client.embed("tei:BAAI/bge-m3", ["a", "bb"], truncate=True, input_type="query")
        many = await client.embed("tei:BAAI/bge-m3", ["x"] * 70)
    assert str(server.requests[0].url) == "http://tei.local:8080/embed"
    assert server.requests[0].headers.get("authorization") is None  # TEI needs no key
    assert orjson.loads(server.requests[0].content) == {"inputs": ["a", "bb"], "truncate": True}
    assert got.vectors == [[1.0, 0.5], [2.0, 0.5]]
    assert got.usage is not None and got.usage.input_tokens == 9
    assert any("input_type" in w for w in got.warnings)
    assert len(server.requests) == 1 + 3  # 70 inputs: pieces of TEI's default 32
    assert len(many.vectors) == 70 and many.usage is not None


async def test_tei_rerank_sends_query_and_texts_and_keeps_the_best_top_n() -> None:
    answer = [{"index": 1, "score": 0.9}, {"index": 0, "score": 0.2}, {"index": 2, "score": 0.5}]
    server = Server(answer)
    async with client_for(server, "tei", {"base_url": "http://tei.local:8080"}) as client:
        got = await client.rerank("tei:BAAI/bge-reranker-v2-m3", "q", ["a", "b", "c"], top_n=2)
    assert str(server.requests[0].url) == "http://tei.local:8080/rerank"
    assert server.body == {"query": "q", "texts": ["a", "b", "c"]}
    assert [(r.index, r.document) for r in got.results] == [(1, "b"), (2, "c")]


def _b64(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


async def test_voyage_multimodal_embeds_images_and_texts_as_the_voyageai_sdk_sends_them() -> None:
    answer = {
        "object": "list",
        "data": [
            {"object": "embedding", "index": 1, "embedding": _b64([0.25, 1.0])},
            {"object": "embedding", "index": 0, "embedding": _b64([0.5, -1.0])},
        ],
        "model": "voyage-multimodal-3",
        "usage": {"text_tokens": 3, "image_pixels": 1000, "total_tokens": 8},
    }
    server = Server(answer)
    image = lb.ImagePart(data=PNG, media_type="image/png")
    async with client_for(server, "voyage", {"api_key": "k"}) as client:
        got = await client.embed(
            "voyage:voyage-multimodal-3", ["a cat", image], input_type="document", truncate=False
        )
    sent = server.requests[0]
    assert str(sent.url) == "https://api.voyageai.com/v1/multimodalembeddings"
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert server.body == {
        "model": "voyage-multimodal-3",
        "inputs": [
            {"content": [{"type": "text", "text": "a cat"}]},
            {"content": [{"type": "image_base64", "image_base64": data_url}]},
        ],
        "input_type": "document",
        "truncation": False,
        "encoding_format": "base64",  # as the voyageai SDK sends it
    }
    assert got.vectors == [[0.5, -1.0], [0.25, 1.0]]
    assert got.usage is not None and got.usage.input_tokens == 8


async def test_voyage_multimodal_takes_an_image_url() -> None:
    answer = {"data": [{"index": 0, "embedding": _b64([1.0])}], "model": "m"}
    server = Server(answer)
    async with client_for(server, "voyage", {"api_key": "k"}) as client:
        await client.embed("voyage:voyage-multimodal-3", [lb.ImagePart(url="https://x/cat.jpg")])
    content = server.body["inputs"][0]["content"]
    assert content == [{"type": "image_url", "image_url": "https://x/cat.jpg"}]


@pytest.mark.parametrize(
    ("name", "answer", "kinds"),
    [
        (
            "gemini",
            {
                "models": [
                    {
                        "name": "models/gemini-embedding-001",
                        "supportedGenerationMethods": ["embedContent"],
                    },
                    {
                        "name": "models/gemini-2.5-flash",
                        "supportedGenerationMethods": ["generateContent"],
                    },
                ]
            },
            {"gemini-embedding-001": "embeddings", "gemini-2.5-flash": "chat"},
        ),
        (
            "cohere",
            {
                "models": [
                    {"name": "rerank-v3.5", "endpoints": ["rerank"]},
                    {"name": "embed-v4.0", "endpoints": ["embed"]},
                    {"name": "command-a-03-2025", "endpoints": ["chat"]},
                ]
            },
            {"rerank-v3.5": "rerank", "embed-v4.0": "embeddings", "command-a-03-2025": "chat"},
        ),
    ],
)
async def test_list_models_rows_say_what_each_model_is_for(
    name: str, answer: dict[str, Any], kinds: dict[str, str]
) -> None:
    async with client_for(Server(answer), name, {"api_key": "k"}) as client:
        rows = await client.list_models(name)
    assert {row.id.removeprefix("models/"): row.kind for row in rows} == kinds


async def test_nova_says_an_image_url_is_not_fetched() -> None:
    server = Server({})
    async with client_for(server, "bedrock", AWS) as client:
        with pytest.raises(lb.UsageError, match="as bytes"):
            await client.embed(
                "bedrock:amazon.nova-2-multimodal-embeddings-v1:0",
                [lb.ImagePart(url="https://x/cat.png")],
            )
    assert server.requests == []

"""What ``client.embed`` sends to each provider and what it makes of the answer: body fields
checked against the official SDKs' parameters (openai, cohere, ollama) or the requests real
SDK users recorded (Gemini, Vertex, Bedrock, Voyage: ``../shared/corpus`` category K), URLs,
auth, option mapping and the ``UsageError`` / warning of an option a provider lacks."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from tests.corpus import CORPUS, needed

pytestmark = pytest.mark.anyio

AWS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "secret",
    "region": "us-east-1",
}


class Server:
    """Answers every request with ``answer`` (a dict, or a function of the request body)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answer(self.body) if callable(self.answer) else self.answer
        return httpx.Response(200, json=answer)

    @property
    def body(self) -> dict[str, Any]:
        return dict(orjson.loads(self.requests[-1].content))


def client_for(server: Server, name: str, **options: Any) -> lb.Client:
    config: dict[str, Any] = {"api_key": "k", **options}
    if name == "bedrock":
        config = {**AWS, **options}
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={name: config},
        retry=lb.RetryPolicy(max_attempts=1),
    )


def b64(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


def openai_answer(body: dict[str, Any]) -> dict[str, Any]:
    vectors = [[0.1 * i, -0.25, 1 / 3] for i, _ in enumerate(body["input"])]
    items = [
        {"object": "embedding", "index": i, "embedding": b64(v)} for i, v in enumerate(vectors)
    ]
    return {
        "object": "list",
        "data": items[::-1],
        "model": body.get("model", "dep"),
        "usage": {"prompt_tokens": 7, "total_tokens": 7},
    }


async def test_openai_sends_base64_and_decodes_the_sdks_floats_in_input_order() -> None:
    server = Server(openai_answer)
    async with client_for(server, "openai") as client:
        got = await client.embed(
            "openai:text-embedding-3-small", ["a", "b", "c"], dimensions=3, input_type="query"
        )
    sent = server.requests[0]
    assert (sent.method, sent.url.path) == ("POST", "/v1/embeddings")
    assert sent.headers["authorization"] == "Bearer k"
    body = server.body
    assert body == {
        "model": "text-embedding-3-small",
        "input": ["a", "b", "c"],
        "encoding_format": "base64",
        "dimensions": 3,
    }
    params = pytest.importorskip("openai.types.embedding_create_params")
    assert body.keys() <= params.EmbeddingCreateParams.__annotations__.keys()
    assert got.warnings and "input_type='query'" in got.warnings[0]
    assert got.usage is not None and got.usage.input_tokens == 7
    assert got.dimensions == 3 and len(got.vectors) == 3
    # the openai SDK on the same bytes: exactly the same floats, same order
    openai = pytest.importorskip("openai")
    raw = json.dumps(openai_answer({"input": ["a", "b", "c"], "model": "m"})).encode()
    sdk = openai.OpenAI(
        api_key="k",
        http_client=httpx.Client(
            transport=httpx.MockTransport(lambda r: httpx.Response(200, content=raw))
        ),
    )
    theirs = sdk.embeddings.create(model="m", input=["a", "b", "c"])
    # (the SDK keeps the answer's order; the vectors belong to their ``index``)
    assert got.vectors == [item.embedding for item in sorted(theirs.data, key=lambda i: i.index)]
    assert got.vectors[1][0] == pytest.approx(0.1) and got.vectors[0][2] != 1 / 3  # float32


async def test_azure_embeds_through_the_deployment_url_with_api_key() -> None:
    server = Server(openai_answer)
    async with client_for(server, "azure", base_url="https://r.openai.azure.com") as client:
        got = await client.embed("azure:my-embedder", "hello")
    sent = server.requests[0]
    assert sent.url.path == "/openai/deployments/my-embedder/embeddings"
    assert sent.url.params["api-version"]
    assert sent.headers["api-key"] == "k" and "authorization" not in sent.headers
    assert "model" not in server.body and server.body["input"] == ["hello"]
    assert len(got.vectors) == 1


async def test_an_openai_compatible_server_answering_json_floats_is_read_too() -> None:
    answer = {"data": [{"index": 0, "embedding": [0.5, 0.25]}], "model": "gemma"}
    server = Server(answer)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"llamacpp": {"base_url": "http://127.0.0.1:9/v1"}},
    )
    async with client:
        got = await client.embed("llamacpp:gemma", ["x"])
    assert server.requests[0].url.path == "/v1/embeddings"
    assert got.vectors == [[0.5, 0.25]] and got.usage is None


async def test_cohere_v2_embed_maps_every_option_to_the_sdks_names() -> None:
    answer = {
        "id": "req-1",
        "embeddings": {"int8": [[1, -2], [3, 4]]},
        "meta": {"billed_units": {"input_tokens": 5}},
    }
    server = Server(answer)
    async with client_for(server, "cohere") as client:
        got = await client.embed(
            "cohere:embed-v4.0",
            ["a", "b"],
            output_type="int8",
            dimensions=256,
            input_type="query",
            truncate=False,
        )
    assert server.requests[0].url.path == "/v2/embed"
    body = server.body
    assert body == {
        "model": "embed-v4.0",
        "texts": ["a", "b"],
        "input_type": "search_query",
        "embedding_types": ["int8"],
        "output_dimension": 256,
        "truncate": "NONE",
    }
    cohere = pytest.importorskip("cohere")
    import inspect

    assert body.keys() <= inspect.signature(cohere.ClientV2.embed).parameters.keys()
    assert got.vectors == [[1, -2], [3, 4]] and got.request_id == "req-1"
    assert got.usage is not None and got.usage.input_tokens == 5 and not got.warnings


async def test_cohere_gets_search_document_when_no_input_type_is_given() -> None:
    server = Server({"embeddings": {"float": [[0.5]]}})
    async with client_for(server, "cohere") as client:
        await client.embed("cohere:embed-v4.0", "a")
    assert server.body["input_type"] == "search_document"
    assert "truncate" not in server.body and "output_dimension" not in server.body


async def test_ollama_native_api_embed_fields_are_the_ollama_clients() -> None:
    server = Server({"model": "nomic", "embeddings": [[0.5, 0.5]], "prompt_eval_count": 3})
    client = lb.Client(http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)))
    async with client:
        got = await client.embed("ollama-native:nomic", ["a"], dimensions=2, truncate=True)
    assert server.requests[0].url.path == "/api/embed"
    body = server.body
    assert body == {"model": "nomic", "input": ["a"], "dimensions": 2, "truncate": True}
    types = pytest.importorskip("ollama._types")
    assert body.keys() <= types.EmbedRequest.model_fields.keys()
    assert got.usage is not None and got.usage.input_tokens == 3


def _recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((CORPUS / name).read_text()))


@needed
async def test_gemini_batch_embed_request_equals_the_recorded_google_genai_one() -> None:
    recorded = _recorded("K_gemini/TestGoogle.test_instrumentation__i0.request.json")
    server = Server({"embeddings": [{"values": [0.5, 0.25]}]})
    async with client_for(server, "gemini") as client:
        got = await client.embed(
            "gemini:gemini-embedding-2-preview",
            ["Hello, world!"],
            dimensions=768,
            input_type="query",
        )
    assert server.requests[0].url.path.endswith(
        "/models/gemini-embedding-2-preview:batchEmbedContents"
    )
    assert server.requests[0].headers["x-goog-api-key"] == "k"
    assert server.body == recorded
    assert got.vectors == [[0.5, 0.25]] and got.usage is None


@needed
async def test_vertex_predict_request_has_the_recorded_shape() -> None:
    recorded = _recorded(
        "K_vertex/embedding_basic_functionality_gemini_text-embedding-004_can_handle_multiple_texts__i1__ddb.request.json"
    )
    answer = {
        "predictions": [{"embeddings": {"values": [0.1], "statistics": {"token_count": 2}}}] * 3
    }
    server = Server(answer)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"vertex": {"access_token": "t", "project": "p", "location": "us-central1"}},
    )
    async with client:
        got = await client.embed("vertex:text-embedding-004", ["Ruby", "Python", "JavaScript"])
    assert server.requests[0].url.path.endswith(
        "/publishers/google/models/text-embedding-004:predict"
    )
    assert server.body == recorded
    assert got.usage is not None and got.usage.input_tokens == 6


@needed
@pytest.mark.parametrize(
    ("model", "recording", "options"),
    [
        ("amazon.titan-embed-text-v1", "TestBedrock.test_titan_v1_minimal__i0", {}),
        (
            "cohere.embed-v4:0",
            "TestBedrock.test_cohere_v4_with_dimensions__i0",
            {"input_type": "query", "dimensions": 512, "truncate": False},
        ),
        (
            "amazon.nova-2-multimodal-embeddings-v1:0",
            "TestBedrock.test_nova_minimal__i0",
            {"input_type": "query", "truncate": False},
        ),
    ],
)
async def test_bedrock_invoke_model_bodies_equal_the_recorded_ones(
    model: str, recording: str, options: dict[str, Any]
) -> None:
    recorded = _recorded(f"K_bedrock/{recording}.request.json")
    answer = _recorded(f"K_bedrock/{recording}.json")
    server = Server(answer)
    texts = recorded.get("texts") or [
        recorded.get("inputText") or recorded["singleEmbeddingParams"]["text"]["value"]
    ]
    async with client_for(server, "bedrock") as client:
        got = await client.embed(f"bedrock:{model}", texts, **options)
    sent = server.requests[0]
    assert sent.url.raw_path.decode().endswith("/invoke")
    assert sent.headers["authorization"].startswith("AWS4-HMAC-SHA256")
    body = server.body
    if "embedding_types" in body:  # we always name the one type asked
        assert body.pop("embedding_types") == ["float"]
    assert body == recorded
    assert len(got.vectors) == len(texts)


async def test_titan_binary_bits_are_packed_like_cohere_and_voyage_send_them() -> None:
    bits = [1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    server = Server({"embeddingsByType": {"binary": bits}, "inputTextTokenCount": 2})
    async with client_for(server, "bedrock") as client:
        unsigned = await client.embed(
            "bedrock:amazon.titan-embed-text-v2:0", "a", output_type="ubinary"
        )
        signed = await client.embed(
            "bedrock:amazon.titan-embed-text-v2:0", "a", output_type="binary"
        )
    assert server.body["embeddingTypes"] == ["binary"]
    assert unsigned.vectors == [[0b10000001, 255]] and signed.vectors == [[-127, -1]]
    np = pytest.importorskip("numpy")
    assert unsigned.vectors[0] == np.packbits(bits).tolist()


@needed
async def test_voyage_request_uses_voyages_own_option_names() -> None:
    recorded = _recorded(
        "K_voyage/TestVoyageAI.test_query_with_voyageai_input_type__i0.request.json"
    )
    answer = _recorded("K_voyage/TestVoyageAI.test_query_with_voyageai_input_type__i0.json")
    server = Server(answer)
    async with client_for(server, "voyage") as client:
        got = await client.embed("voyage:voyage-3.5", ["Hello, world!"], truncate=False)
    assert str(server.requests[0].url) == "https://api.voyageai.com/v1/embeddings"
    body = server.body
    assert {k: v for k, v in recorded.items() if v is not None} == body
    assert got.usage is not None and got.usage.input_tokens == 4


async def test_jina_maps_input_type_to_its_task() -> None:
    server = Server({"data": [{"index": 0, "embedding": [0.5]}], "usage": {"total_tokens": 3}})
    async with client_for(server, "jina") as client:
        await client.embed("jina:jina-embeddings-v3", ["a"], input_type="document", truncate=True)
    assert server.body == {
        "model": "jina-embeddings-v3",
        "input": ["a"],
        "task": "retrieval.passage",
        "truncate": True,
        "embedding_type": "float",
    }


async def test_an_output_type_the_provider_lacks_is_a_usage_error_naming_who_has_it() -> None:
    server = Server(openai_answer)
    async with client_for(server, "openai") as client:
        with pytest.raises(lb.UsageError, match="cohere") as info:
            await client.embed("openai:text-embedding-3-small", "a", output_type="int8")
        with pytest.raises(lb.UsageError, match="voyage"):
            await client.embed("openai:text-embedding-3-small", "a", truncate=True)
        with pytest.raises(lb.UsageError, match="input_type"):
            await client.embed("openai:text-embedding-3-small", "a", input_type="questions")  # type: ignore[arg-type]
    assert "mistral" in str(info.value) and not server.requests


async def test_a_chat_only_provider_says_which_providers_embed() -> None:
    async with lb.Client(providers={"anthropic": {"api_key": "k"}}) as client:
        with pytest.raises(lb.ConfigurationError, match="voyage"):
            await client.embed("anthropic:claude-sonnet-4-5", "a")


async def test_voyage_is_not_a_chat_provider() -> None:
    async with lb.Client(providers={"voyage": {"api_key": "k"}}) as client:
        with pytest.raises(lb.ConfigurationError, match="embeddings and reranking"):
            await client.complete("voyage:voyage-3.5", [lb.ChatMessage.user("hi")])


async def test_numpy_view_of_base64_floats_is_zero_copy() -> None:
    np = pytest.importorskip("numpy")
    server = Server(openai_answer)
    async with client_for(server, "openai") as client:
        got = await client.embed("openai:text-embedding-3-small", ["a", "b"])
    array = got.numpy()
    assert array.shape == (2, 3) and array.dtype == np.float32
    assert not array.flags.writeable and not array.flags.owndata
    assert array.tolist() == got.vectors


async def test_images_are_embedded_as_bytes_by_gemini_and_nova() -> None:
    image = lb.ImagePart(data=b"\x89PNG", media_type="image/png")
    server = Server({"embeddings": [{"values": [0.5]}, {"values": [0.25]}]})
    async with client_for(server, "gemini") as client:
        got = await client.embed("gemini:gemini-embedding-2-preview", ["a cat", image])
    parts = [r["content"]["parts"][0] for r in server.body["requests"]]
    assert parts == [
        {"text": "a cat"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
    ]
    assert got.vectors == [[0.5], [0.25]]
    nova = Server({"embeddings": [{"embeddingType": "IMAGE", "embedding": [0.5]}]})
    async with client_for(nova, "bedrock") as client:
        await client.embed("bedrock:amazon.nova-2-multimodal-embeddings-v1:0", [image])
    params = nova.body["singleEmbeddingParams"]
    assert params["image"] == {"format": "png", "source": {"bytes": "iVBORw=="}}
    async with client_for(server, "openai") as client:
        with pytest.raises(lb.UsageError, match="images are embedded by"):
            await client.embed("openai:text-embedding-3-small", [image])


async def test_cohere_embed_v4_takes_images_as_inputs_content() -> None:
    image = lb.ImagePart(data=b"\x89PNG", media_type="image/png")
    server = Server({"embeddings": {"float": [[0.5], [0.25]]}})
    async with client_for(server, "cohere") as client:
        got = await client.embed("cohere:embed-v4.0", ["a cat", image])
    body = server.body
    assert body["inputs"] == [
        {"content": [{"type": "text", "text": "a cat"}]},
        {
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}
            ]
        },
    ]
    assert "texts" not in body and got.vectors == [[0.5], [0.25]]
    cohere = pytest.importorskip("cohere")
    for item in body["inputs"]:  # the SDK's own types take them
        cohere.EmbedInput.model_validate(item)

"""Images as embedding inputs where the provider takes them beyond the first-party APIs:
Cohere Embed on Bedrock (v4: ``inputs`` content lists as the cohere SDK's Bedrock client
sends them; v3: one image alone) and the Gemini embedding models on Vertex AI
(``:batchEmbedContents``, the request google-genai sends, its answer decoded by the SDK on
the same bytes); the ``UsageError`` of an image a model or host cannot take."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import llmbridge as lb
from tests.embeddings.test_embeddings_requests import Server, client_for

pytestmark = pytest.mark.anyio

IMAGE = lb.ImagePart(data=b"\x89PNG", media_type="image/png")
DATA_URL = "data:image/png;base64,iVBORw=="


async def test_cohere_embed_v4_on_bedrock_takes_images_in_inputs() -> None:
    server = Server({"id": "e1", "embeddings": {"float": [[0.5], [0.25]]}})
    async with client_for(server, "bedrock") as client:
        got = await client.embed(
            "bedrock:us.cohere.embed-v4:0", ["a cat", IMAGE], input_type="query", dimensions=256
        )
    sent = server.requests[0]
    assert sent.url.raw_path.decode().endswith("/model/us.cohere.embed-v4%3A0/invoke")
    assert sent.headers["authorization"].startswith("AWS4-HMAC-SHA256")
    body = server.body
    assert body == {
        "inputs": [
            {"content": [{"type": "text", "text": "a cat"}]},
            {"content": [{"type": "image_url", "image_url": {"url": DATA_URL}}]},
        ],
        "input_type": "search_query",
        "embedding_types": ["float"],
        "output_dimension": 256,
    }
    cohere = pytest.importorskip("cohere")
    for item in body["inputs"]:  # the v2 body the cohere SDK's Bedrock client sends
        cohere.EmbedInput.model_validate(item)
    assert got.vectors == [[0.5], [0.25]] and got.request_id == "e1"


async def test_the_invoke_model_request_is_the_one_botocore_serializes() -> None:
    """The URL (the model id escaped in the path), method and headers of InvokeModel as
    botocore's ``bedrock-runtime`` model makes them, for an image body of Cohere Embed v4."""
    session = pytest.importorskip("botocore.session")
    from botocore.serialize import create_serializer
    from botocore.validate import ParamValidator

    server = Server({"embeddings": {"float": [[0.5]]}})
    async with client_for(server, "bedrock") as client:
        await client.embed("bedrock:global.cohere.embed-v4:0", [IMAGE])
    sent = server.requests[0]
    operation = session.get_session().get_service_model("bedrock-runtime")
    invoke = operation.operation_model("InvokeModel")
    params = {
        "modelId": "global.cohere.embed-v4:0",
        "body": sent.content,
        "contentType": sent.headers["content-type"],
        "accept": sent.headers["accept"],
    }
    report = ParamValidator().validate(params, invoke.input_shape)
    assert not report.has_errors(), report.generate_report()
    theirs = create_serializer("rest-json").serialize_to_request(params, invoke)
    assert theirs["method"] == sent.method
    assert theirs["url_path"] == sent.url.raw_path.decode()
    assert {k.lower(): v for k, v in theirs["headers"].items()} == {
        "content-type": "application/json",
        "accept": "application/json",
    }
    assert sent.url.host == "bedrock-runtime.us-east-1.amazonaws.com"


async def test_cohere_embed_v3_on_bedrock_takes_one_image_alone() -> None:
    server = Server({"embeddings": {"float": [[0.5]]}})
    async with client_for(server, "bedrock") as client:
        got = await client.embed("bedrock:cohere.embed-english-v3", [IMAGE])
        assert server.body == {
            "images": [DATA_URL],
            "input_type": "image",
            "embedding_types": ["float"],
        }
        assert got.vectors == [[0.5]]
        with pytest.raises(lb.UsageError, match="one image per call"):
            await client.embed("bedrock:cohere.embed-english-v3", ["a cat", IMAGE])
    assert len(server.requests) == 1


async def test_bedrock_fetches_no_image_url() -> None:
    server = Server({"embeddings": {"float": [[0.5]]}})
    by_url = lb.ImagePart(url="https://example.com/cat.png")
    async with client_for(server, "bedrock") as client:
        with pytest.raises(lb.UsageError, match="as bytes"):
            await client.embed("bedrock:cohere.embed-v4:0", ["a cat", by_url])
    assert not server.requests


def _vertex_client(server: Server) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"vertex": {"access_token": "t", "project": "p", "location": "us-central1"}},
        retry=lb.RetryPolicy(max_attempts=1),
    )


def _genai_vertex(answer: dict[str, Any], contents: list[Any], **config: Any) -> Any:
    """google-genai's Vertex ``embed_content`` against a mock: its request and its result."""
    genai = pytest.importorskip("google.genai")
    credentials = pytest.importorskip("google.oauth2.credentials")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer)

    sdk = genai.Client(
        vertexai=True,
        project="p",
        location="us-central1",
        credentials=credentials.Credentials(token="t"),
        http_options=genai.types.HttpOptions(
            httpx_client=httpx.Client(transport=httpx.MockTransport(handler))
        ),
    )
    result = sdk.models.embed_content(
        model="gemini-embedding-2-preview", contents=contents, config=config
    )
    return seen[0], result


def _plain(body: Any) -> Any:
    """A request body with the spellings the API takes alike made one (``mime_type`` is
    ``mimeType`` in proto JSON; the SDK names ``role`` only for string contents)."""
    if isinstance(body, dict):
        return {
            ("mimeType" if k == "mime_type" else k): _plain(v)
            for k, v in body.items()
            if k != "role"
        }
    if isinstance(body, list):
        return [_plain(v) for v in body]
    return body


async def test_gemini_embedding_models_on_vertex_take_images_as_google_genai_sends_them() -> None:
    answer = {
        "embeddings": [{"values": [0.5, 0.25]}, {"values": [-0.125, 1.0]}],
        "usageMetadata": {"promptTokenCount": 5},
    }
    server = Server(answer)
    async with _vertex_client(server) as client:
        got = await client.embed(
            "vertex:gemini-embedding-2-preview",
            ["a cat", IMAGE],
            input_type="document",
            dimensions=8,
            truncate=True,
        )
    sent = server.requests[0]
    assert sent.url.path.endswith(
        "/publishers/google/models/gemini-embedding-2-preview:batchEmbedContents"
    )
    assert sent.headers["authorization"] == "Bearer t"
    types = pytest.importorskip("google.genai.types")
    contents = [
        types.Content(parts=[types.Part(text="a cat")]),
        types.Content(parts=[types.Part.from_bytes(data=IMAGE.data, mime_type="image/png")]),
    ]
    theirs, result = _genai_vertex(
        answer,
        contents,
        task_type="RETRIEVAL_DOCUMENT",
        output_dimensionality=8,
        auto_truncate=True,
    )
    assert theirs.url.path.endswith(":batchEmbedContents")
    assert _plain(server.body) == _plain(json.loads(theirs.content))
    assert got.vectors == [e.values for e in result.embeddings]
    assert got.usage is not None and got.usage.input_tokens == 5


async def test_gemini_text_embedding_on_vertex_goes_by_batch_embed_contents_too() -> None:
    server = Server({"embeddings": [{"values": [0.5]}, {"values": [0.25]}]})
    async with _vertex_client(server) as client:
        got = await client.embed("vertex:gemini-embedding-001", ["a", "b"])
    assert server.requests[0].url.path.endswith("/gemini-embedding-001:batchEmbedContents")
    assert server.body == {
        "requests": [
            {"content": {"parts": [{"text": "a"}], "role": "user"}},
            {"content": {"parts": [{"text": "b"}], "role": "user"}},
        ]
    }
    assert got.vectors == [[0.5], [0.25]] and got.usage is None


async def test_an_image_to_a_vertex_text_model_names_the_models_that_take_one() -> None:
    server = Server({"predictions": []})
    async with _vertex_client(server) as client:
        with pytest.raises(lb.UsageError, match="gemini-embedding-2") as info:
            await client.embed("vertex:text-embedding-005", ["a cat", IMAGE])
    assert "cohere" in str(info.value) and not server.requests

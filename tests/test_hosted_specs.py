"""Provider-run tool specs (``llmbridge.hosted``): the specs, ``tools=``, the refusal before
sending, and what comes back (typed events folded into ``ChatResponse``)."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

import llmbridge as lb
from llmbridge.client.tool_options import as_specs, hosted_tools
from llmbridge.events import ApprovalRequest, event_from_dict, event_to_dict
from llmbridge.hosted import RUNS_ON
from llmbridge.response import accumulate
from llmbridge.stream import RetryPolicy

USER = [lb.ChatMessage.user("hi")]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def weather(city: str) -> str:
    """Weather in a city."""
    return "sunny"


def test_specs_validate_their_options() -> None:
    with pytest.raises(ValidationError, match="not both"):
        lb.WebSearch(allowed_domains=["a.com"], blocked_domains=["b.com"])
    with pytest.raises(ValidationError):
        lb.WebSearch(max_uses=0)
    with pytest.raises(ValidationError):
        lb.FileSearch(vector_store_ids=[])
    with pytest.raises(ValidationError):
        lb.WebSearch(bogus=1)  # type: ignore[call-arg]


def test_hosted_mcp_takes_its_url_positionally_and_derives_a_label() -> None:
    mcp = lb.HostedMCP("https://mcp.deepwiki.com/mcp", allowed_tools=["ask_question"])
    assert mcp.url == "https://mcp.deepwiki.com/mcp"
    assert mcp.label == "mcp_deepwiki_com"
    assert mcp.approval == "always"  # nothing runs unasked unless the app says so
    assert lb.HostedMCP(url="https://x.io:8443/m", name="docs").label == "docs"
    assert lb.HostedMCP("https://x.io:8443/m").label == "x_io"
    assert "secret" not in repr(lb.HostedMCP("https://x.io", headers={"A": "secret"}))


def test_specs_round_trip_through_a_chat_request_dump() -> None:
    tools = [
        lb.WebSearch(max_uses=2, user_location=lb.UserLocation(city="Lisbon", country="PT")),
        lb.HostedMCP("https://m.example/mcp", approval={"never": ["read"]}),
        lb.CodeExecution(),
    ]
    req = lb.ChatRequest(model="m", messages=USER, hosted_tools=tools)
    sparse = [t.model_dump(mode="json", exclude_defaults=True) for t in tools]
    assert [t["type"] for t in sparse] == ["web_search", "mcp", "code_execution"]  # kept
    assert sparse[2] == {"type": "code_execution"}
    dumped = {**req.model_dump(mode="json"), "hosted_tools": sparse}
    assert lb.ChatRequest.model_validate(dumped).hosted_tools == tools


def test_tools_argument_splits_function_tools_from_hosted_specs() -> None:
    search, code = lb.WebSearch(), lb.CodeExecution()
    mixed = [weather, search, lb.CachePoint(), code]
    assert [s.name for s in as_specs(mixed)] == ["weather"]
    assert hosted_tools(mixed) == [search, code]
    assert hosted_tools(None) == []


@pytest.mark.parametrize(
    ("model", "tool"),
    [
        ("openai:gpt-4.1", lb.WebSearch()),
        ("groq:llama-3.3-70b-versatile", lb.CodeExecution()),
        ("openai-responses:gpt-5", lb.WebFetch()),
        ("anthropic:claude-3-haiku-20240307", lb.WebSearch()),
        ("anthropic:claude-sonnet-4-5", lb.ImageGeneration()),
        ("vertex:gemini-2.5-flash", lb.FileSearch(vector_store_ids=["s"])),
        ("gemini:gemini-2.5-flash", lb.HostedMCP("https://m.example")),
    ],
)
@pytest.mark.anyio
async def test_a_provider_that_cannot_run_a_spec_refuses_before_sending(
    model: str, tool: object
) -> None:
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500))
    config = {
        "vertex": {"project": "p", "location": "us-central1", "access_token": "t"},
        **{name: {"api_key": "k"} for name in ("openai", "groq", "openai-responses")},
        **{name: {"api_key": "k"} for name in ("anthropic", "gemini")},
    }
    async with lb.Client(http_client=httpx.AsyncClient(transport=transport), providers=config) as c:
        with pytest.raises(lb.ConfigurationError) as info:
            async for _ in c.stream(model, USER, tools=[weather, tool]):
                pass
    assert sent == []
    message = str(info.value)
    kind = tool.type  # type: ignore[attr-defined]
    assert f"{type(tool).__name__} ({kind}) cannot run on {model}" in message
    assert ", ".join(RUNS_ON[kind]) in message


@pytest.mark.parametrize("model", ["openai-responses:gpt-5", "anthropic:claude-sonnet-4-5"])
@pytest.mark.anyio
async def test_two_mcp_servers_with_one_label_are_refused_before_sending(model: str) -> None:
    """Both APIs name a server in its calls (and ``ApprovalRequest.server``) by the label, which
    defaults to the URL's host: two servers on one host would share it."""
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500))
    config = {name: {"api_key": "k"} for name in ("openai-responses", "anthropic")}
    servers = [
        lb.HostedMCP("https://mcp.example.com/github", approval="never"),
        lb.HostedMCP("https://mcp.example.com/jira", approval="never"),
    ]
    http = httpx.AsyncClient(transport=transport)
    async with lb.Client(
        http_client=http, providers=config, retry=RetryPolicy(max_attempts=1)
    ) as c:
        with pytest.raises(lb.ConfigurationError, match="'mcp_example_com'.*name="):
            await c.complete(model, USER, tools=servers)
        assert sent == []
        named = [
            servers[0],
            lb.HostedMCP("https://mcp.example.com/jira", name="jira", approval="never"),
        ]
        with pytest.raises(lb.ServerError):  # sent: the mock answers 500
            await c.complete(model, USER, tools=named)
    assert len(sent) == 1


def test_typed_events_fold_into_the_response_without_splitting_text() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    events: list[lb.StreamEvent] = [
        lb.StreamStart(response_id="r"),
        lb.TextDelta("Lisbon has "),
        lb.Citation("https://a.example", "A", "Lisbon has"),
        lb.TextDelta("545,000 people."),
        lb.ProviderItem({"type": "mcp_approval_request", "id": "mcpr_1"}),
        ApprovalRequest("mcpr_1", "docs", "search", {"q": "x"}),
        lb.CodeOutput(stdout="42\n", exit_code=0, files=["file_1"]),
        lb.GeneratedImage(b64=png, media_type="image/png"),
        lb.Finish("stop"),
    ]
    resp = accumulate(events, provider="openai-responses")
    assert resp.text == "Lisbon has 545,000 people."
    assert [type(p).__name__ for p in resp.message.content] == ["TextPart", "RawPart"]
    assert resp.citations == [lb.Citation("https://a.example", "A", "Lisbon has")]
    assert resp.approval_requests == [ApprovalRequest("mcpr_1", "docs", "search", {"q": "x"})]
    assert resp.code_outputs[0].files == ["file_1"]
    assert resp.images[0].data == b"\x89PNG\r\n\x1a\n"
    assert resp.images[0].url is None


def test_typed_events_survive_the_golden_dict_form() -> None:
    for event in (
        lb.Citation("https://a.example", None, "x"),
        ApprovalRequest("mcpr_1", "docs", "search", {"q": 1}),
        lb.CodeOutput(stderr="boom", exit_code=1),
        lb.GeneratedImage(url="https://img.example/1.png"),
    ):
        assert event_from_dict(event_to_dict(event)) == event
    assert event_to_dict(ApprovalRequest("i", "s", "t", {}))["type"] == "approval_request"


def test_approval_response_is_a_user_content_part() -> None:
    msg = lb.ChatMessage.user(lb.ApprovalResponse("mcpr_1", approve=False, reason="no"))
    again = lb.ChatMessage.model_validate_json(msg.model_dump_json())
    assert again == msg
    assert again.content[0] == lb.ApprovalResponse(id="mcpr_1", approve=False, reason="no")
    with pytest.raises(ValidationError):
        lb.ApprovalResponse("x")  # approve= is required


@pytest.mark.parametrize(
    "model", ["anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash", "openai:gpt-4.1"]
)
def test_other_providers_skip_an_approval_response(model: str) -> None:
    client = lb.Client(providers={"anthropic": {"api_key": "k"}, "gemini": {"api_key": "k"},
                                  "openai": {"api_key": "k"}})  # fmt: skip
    provider, name = client.resolve(model)
    plain = client.build_request(name, [*USER, lb.ChatMessage.user("go on")])
    answered = client.build_request(
        name, [*USER, lb.ChatMessage.user("go on", lb.ApprovalResponse("a", approve=True))]
    )
    assert provider.build_request(answered).json == provider.build_request(plain).json


@pytest.mark.anyio
async def test_recording_scrubs_a_remote_mcp_servers_token(tmp_path: Path) -> None:
    """A token in a hosted spec travels in the request *body* (Responses ``headers``): the
    recorder treats credential-named body fields like credential headers."""
    from llmbridge.testing import load_fixture, record_fixture

    token = "mcp-token-abcdefgh12345678"
    body = (FIXTURES / "openai-responses" / "hosted_mcp_approval" / "response.sse").read_bytes()

    def upstream(request: httpx.Request) -> httpx.Response:
        assert token in request.content.decode()  # the real request carries it
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    path = tmp_path / "openai-responses" / "mcp"
    docs = lb.HostedMCP(
        "https://docs.example.com/mcp", headers={"Authorization": f"Bearer {token}"}
    )
    await record_fixture(
        path,
        "openai-responses:gpt-5",
        USER,
        client_options={"providers": {"openai-responses": {"api_key": "sk-abcdefgh12345678"}}},
        transport=httpx.MockTransport(upstream),
        tools=[docs],
    )
    written = "".join(p.read_text() for p in path.iterdir())
    assert token not in written and "sk-abcdefgh12345678" not in written
    assert [e.type for e in load_fixture(path).events or []][-2:] == ["approval_request", "finish"]

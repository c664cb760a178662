"""Misuse ends in one clear ``LLMBridgeError`` (issue 35, items 4-8): plain-string and
OpenAI-shaped messages, bad options, typos in ``providers={...}`` and model prefixes, the otel
extra, ``response_format`` JSON mode, per-call ``headers`` and retry settings."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from pydantic import ValidationError

import llmbridge as lb
from llmbridge.errors import ConfigurationError, RateLimitError, UsageError
from llmbridge.providers.option_names import option_names
from llmbridge.providers.registry import provider_factory, register_provider
from tests.fakes import FakeProvider, RecordingServer, mock_client, sse_body, sse_response

pytestmark = pytest.mark.anyio

FAKE = FakeProvider(lb.ProviderConfig.from_mapping({"api_key": "k"}))


def client() -> lb.Client:
    return lb.Client(http_client=mock_client(lambda r: httpx.Response(500)))


# -- messages -------------------------------------------------------------------------------
def test_a_plain_string_is_one_user_message() -> None:
    request = client().build_request("m", "Hi")
    assert request.messages == [lb.ChatMessage.user("Hi")]


async def test_complete_takes_a_plain_string() -> None:
    server = RecordingServer(sse_body({"text": "hello"}, {"finish": "stop"}))
    async with lb.Client(http_client=mock_client(server)) as c:
        response = await c.complete((FAKE, "m"), "Hi")
    assert response.text == "hello"
    assert server.sent[0]["messages"] == [{"role": "user", "text": "Hi"}]


def test_openai_shaped_dicts_are_read() -> None:
    messages: Any = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    got = client().build_request("m", messages).messages
    assert [m.role for m in got] == ["system", "user", "assistant", "tool"]
    assert got[0].text == "Be brief." and got[1].text == "Weather?"
    assert got[2].tool_calls[0].arguments == {"city": "Paris"}
    assert got[3].tool_results[0].tool_call_id == "c1"
    assert got[3].tool_results[0].text == "sunny"


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        ([{"role": "robot", "content": "x"}], "role='robot'"),
        ([{"content": "x"}], "role"),
        ([42], "messages[0] is a int"),
        (42, "takes a list of messages"),
        ([{"role": "user", "content": [{"type": "video", "url": "x"}]}], "messages[0]"),
    ],
)
def test_a_bad_message_is_a_usage_error_naming_chat_message(messages: Any, said: str) -> None:
    with pytest.raises(UsageError) as info:
        client().build_request("m", messages)
    assert said in str(info.value)
    assert "ChatMessage" in str(info.value)
    assert not isinstance(info.value, ValidationError)
    assert info.value.__cause__ is None or not isinstance(info.value.__cause__, ValidationError)


# -- options --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"tool_mode": "nativ"}, "did you mean 'native'?"),
        ({"temperature": "hot"}, "temperature='hot'"),
        ({"format_mode": "schema"}, "format_mode='schema'"),
        ({"tool_choice": 3}, "tool_choice"),
    ],
)
def test_bad_option_values_are_usage_errors(options: dict[str, Any], said: str) -> None:
    with pytest.raises(UsageError, match=re.escape(said)) as info:
        client().build_request("m", "Hi", **options)
    assert "pydantic" not in str(info.value)


def test_an_option_name_typo_says_the_closest() -> None:
    with pytest.raises(UsageError, match="did you mean 'max_tokens'"):
        client().stream((FAKE, "m"), "Hi", max_token=5)  # type: ignore[call-arg]  # the typo under test


# -- providers={...} and model prefixes ------------------------------------------------------
@pytest.mark.parametrize(
    ("providers", "said"),
    [
        ({"openai": {"base_ur": "http://x"}}, "did you mean 'base_url'?"),
        ({"opnai": {}}, "did you mean 'openai'?"),
        ({"vertex": {"projct": "p"}}, "did you mean 'project'?"),
        ({"anthropic": {"beta": ["x"]}}, "did you mean 'betas'?"),
        ({"openai": "sk-..."}, "takes a dict of options"),
    ],
)
def test_provider_config_typos_fail_at_client(providers: Any, said: str) -> None:
    with pytest.raises(UsageError, match=re.escape(said)):
        lb.Client(providers=providers)


def test_provider_specific_options_pass() -> None:
    lb.Client(
        providers={
            "azure": {"api_version": "2024-10-21", "base_url": "https://x.openai.azure.com"},
            "vertex": {"project": "p", "location": "us-east5", "access_token": "t"},
            "anthropic": {"auth": "x-api-key", "betas": ["b"], "api_version": "2023-06-01"},
            "openai-compatible": {"base_url": "http://h/v1", "native_tools": False},
            "openai-responses": {"organization": "o", "project": "p"},
            "gemini": {"json_schema": True, "headers": {"x": "y"}, "env": {}},
        }
    )


def test_a_plugin_without_a_declaration_is_not_checked() -> None:
    register_provider("undeclared-dx", lambda config: FakeProvider(config), replace=True)
    lb.Client(providers={"undeclared-dx": {"whatever": 1}})
    declared = lambda config: FakeProvider(config)  # noqa: E731
    declared.option_names = frozenset({"region"})  # type: ignore[attr-defined]
    register_provider("declared-dx", declared, replace=True)
    lb.Client(providers={"declared-dx": {"region": "eu"}})
    with pytest.raises(UsageError, match="did you mean 'region'"):
        lb.Client(providers={"declared-dx": {"regoin": "eu"}})


def test_a_model_prefix_typo_says_the_closest() -> None:
    with pytest.raises(ConfigurationError, match="did you mean 'openai'"):
        lb.Client().resolve("opnai:gpt-4.1-mini")


_READS = re.compile(
    r"""(?<!\w)options(?:\.get\(\s*["']([a-z_]+)["']|\[\s*["']([a-z_]+)["']\](?!\s*=[^=]))"""
)


def test_every_option_a_builtin_provider_reads_is_declared() -> None:
    """Scans each provider package (every module) for ``options.get("x")`` / ``options["x"]``:
    an option a provider reads but does not declare would be refused at ``Client()`` (e.g.
    after a merge that adds an option: declare it with ``declare_options``)."""
    root = Path(lb.__file__).parent / "providers"
    for name, package in [
        ("anthropic", "anthropic"),
        ("gemini", "gemini"),
        ("vertex", "gemini"),
        ("openai-responses", "openai_responses"),
        ("openai", "openai"),
    ]:
        declared = option_names(provider_factory(name))
        assert declared is not None, name
        source = "".join(p.read_text() for p in sorted((root / package).glob("*.py")))
        read = {m.group(1) or m.group(2) for m in _READS.finditer(source)} - {"extra"}
        if name == "gemini":  # Vertex-only reads live in create_vertex
            read -= {"access_token", "project", "location"}
        assert read <= declared, (name, read - declared)


@pytest.mark.parametrize(
    ("name", "files"),
    [
        ("bedrock", ("providers/bedrock/*.py", "auth/aws.py")),
        ("anthropic-bedrock", ("providers/anthropic_clouds/bedrock.py", "auth/aws.py")),
        ("anthropic-aws", ("providers/anthropic_clouds/aws.py", "auth/aws.py")),
        ("anthropic-bedrock-mantle", ("providers/anthropic_clouds/mantle.py", "auth/aws.py")),
        ("anthropic-vertex", ("providers/anthropic_clouds/vertex.py", "auth/google.py")),
        (
            "anthropic-google-cloud",
            ("providers/anthropic_clouds/google_cloud.py", "auth/google.py"),
        ),
        ("anthropic-foundry", ("providers/anthropic_clouds/foundry.py",)),
        ("azure-responses", ("providers/openai/endpoints.py", "providers/openai_responses/*.py")),
        ("bedrock-mantle", ("providers/openai/endpoints.py",)),
        ("ollama-native", ("providers/ollama_native/*.py",)),
        ("cohere", ("providers/cohere/*.py",)),
    ],
)
def test_every_option_a_cloud_provider_reads_is_declared(name: str, files: tuple[str, ...]) -> None:
    """The same for the cloud providers: what the cloud's module, the shared Claude-on-a-cloud
    base and the credential helper it uses read is declared (an undeclared one would be
    refused at ``Client()``)."""
    root = Path(lb.__file__).parent
    shared = ("providers/anthropic_clouds/base.py",) if "anthropic-" in name else ()
    paths = [p for pattern in (*files, *shared) for p in sorted(root.glob(pattern))]
    assert paths, files
    source = "".join(p.read_text() for p in paths)
    read = {m.group(1) or m.group(2) for m in _READS.finditer(source)} - {"extra", "bedrock"}
    declared = option_names(provider_factory(name))
    assert declared is not None, name
    assert read <= declared, (name, read - declared)


# -- telemetry without the extra -------------------------------------------------------------
def test_telemetry_without_otel_fails_at_client(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name.startswith("opentelemetry"):
            return None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ConfigurationError, match=re.escape("pip install 'llmbridge[otel]'")):
        lb.Client(telemetry=True)
    with pytest.raises(UsageError, match="telemetry= takes"):
        lb.Client(telemetry="yes")  # type: ignore[arg-type]


# -- response_format JSON mode -------------------------------------------------------------
def _body(model: str, response_format: Any, **providers: Any) -> dict[str, Any]:
    c = lb.Client(providers=providers or None)
    provider, name = c.resolve(model)
    request = c.build_request(name, "Give me a JSON object", response_format=response_format)
    from llmbridge.client.pipeline import plan_request

    body = plan_request(provider, request, rescue=None).http.json
    assert body is not None
    return body


@pytest.mark.parametrize("fmt", ["json", {"type": "json_object"}, lb.ResponseFormat.json_object()])
def test_json_mode_on_openai_chat(fmt: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    body = _body("openai:gpt-4.1-mini", fmt)
    assert body["response_format"] == {"type": "json_object"}
    assert "JSON object" in orjson.dumps(body["messages"]).decode()


def test_json_mode_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(var, "k")
    responses = _body("openai-responses:gpt-5", "json")
    assert responses["text"]["format"] == {"type": "json_object"}
    gemini = _body("gemini:gemini-2.5-flash", "json")["generationConfig"]
    assert gemini["responseMimeType"] == "application/json"
    assert "responseSchema" not in gemini and "responseJsonSchema" not in gemini
    anthropic = _body("anthropic:claude-sonnet-4-5", "json")
    assert "format" not in anthropic.get("output_config", {})
    assert "JSON object" in orjson.dumps(anthropic["system"]).decode()


def test_openai_json_schema_shape_is_read() -> None:
    from llmbridge.structured import response_format_of

    fmt = response_format_of(
        {
            "type": "json_schema",
            "json_schema": {"name": "city", "schema": {"type": "object"}, "strict": False},
        }
    )
    assert (fmt.name, fmt.json_schema, fmt.strict) == ("city", {"type": "object"}, False)
    with pytest.raises(UsageError, match="a string must be 'json'"):
        response_format_of("yaml")


async def test_any_object_reply_must_be_an_object() -> None:
    server = RecordingServer(sse_body({"text": "[1, 2]"}, {"finish": "stop"}))
    async with lb.Client(http_client=mock_client(server)) as c:
        with pytest.raises(lb.StructuredOutputError, match="not an object"):
            await c.complete((FAKE, "m"), "Hi", response_format="json")
        server.body = sse_body({"text": '{"a": 1}'}, {"finish": "stop"})
        response = await c.complete((FAKE, "m"), "Hi", response_format="json")
    assert response.parsed == {"a": 1}


# -- per-call headers and retry settings -----------------------------------------------------
async def test_per_call_headers_reach_the_wire() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return sse_response(sse_body({"text": "ok"}, {"finish": "stop"}))

    async with lb.Client(http_client=mock_client(handler)) as c:
        await c.complete((FAKE, "m"), "Hi", headers={"X-Trace": "t1", "Authorization": "Bearer b"})
        await c.complete((FAKE, "m"), "Hi")
    assert seen[0].headers["x-trace"] == "t1"
    assert seen[0].headers.get_list("authorization") == ["Bearer b"]
    assert "x-trace" not in seen[1].headers


async def test_per_call_retry_settings() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(429, headers={"retry-after": "0"}, json={"error": {}})

    async with lb.Client(http_client=mock_client(handler)) as c:
        with pytest.raises(RateLimitError):
            await c.complete((FAKE, "m"), "Hi", max_attempts=1)
        assert calls == 1
        with pytest.raises(RateLimitError):
            await c.complete((FAKE, "m"), "Hi", retry=lb.RetryPolicy(max_attempts=2))
        assert calls == 3
        with pytest.raises(lb.AllModelsFailedError):  # a chain passes them on to each model
            await c.complete([(FAKE, "m")], "Hi", max_attempts=1)
        assert calls == 4
        with pytest.raises(UsageError, match="max_attempts"):
            await c.complete((FAKE, "m"), "Hi", max_attempts=0)


def test_per_call_settings_belong_to_the_call_not_a_chain_model() -> None:
    with pytest.raises(UsageError, match="per-call settings"):
        client().stream([lb.ModelOption((FAKE, "m"), headers={"x": "y"})], "Hi")


def test_sync_client_misuse_leaves_no_thread_behind() -> None:
    import threading

    before = threading.active_count()
    with pytest.raises(UsageError, match="did you mean 'base_url'"):
        lb.SyncClient(providers={"openai": {"base_ur": "x"}})
    assert threading.active_count() == before
    with lb.SyncClient(http_client=mock_client(lambda r: sse_response(sse_body({"text": "hi"}, {"finish": "stop"})))) as c:  # fmt: skip
        assert c.complete((FAKE, "m"), "Hi").text == "hi"

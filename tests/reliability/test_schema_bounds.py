"""Schema work is bounded on every encoder, and nesting never reaches a RecursionError
(issue 34, items 1 and 6; pure code, no event loop involved).

A "billion laughs" schema (20 definitions, each referring to the next twice) is 2 KB; inlined,
as Gemini's ``Schema`` needs, it is a million subschemas (33 s, 788 MB and a 92 MB body
before). Encoders that send ``$ref`` as written build a small body; Gemini's refuses it with a
``ToolSchemaError`` at once. Schemas nested past the bound and arguments nested past theirs
are typed errors on every encoder.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.base import ProviderConfig
from llmbridge.providers.registry import create_provider
from llmbridge.request import ChatRequest
from llmbridge.specs.schema_bounds import MAX_INLINED_SCHEMAS, check_schema_bounds
from llmbridge.structured import response_format_of

PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini"]
INLINES = {"gemini"}  # encoders for an API without $ref


def laughs(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"d{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"}, "b": {"$ref": f"#/$defs/d{i + 1}"}},
        }
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def build(provider: str, **options: Any) -> dict[str, Any]:
    config = ProviderConfig.from_mapping({"api_key": "test-key", **options.pop("config", {})})
    request = ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], **options)
    body = create_provider(provider, config).build_request(request).json
    assert isinstance(body, dict)
    return body


def _timed_build(provider: str, **options: Any) -> tuple[dict[str, Any] | None, float]:
    """The body (``None``: refused) and the CPU seconds it took this process (another process
    keeping the machine busy does not count: the bounds hold on a loaded machine too)."""
    start = time.process_time()
    try:
        body = build(provider, **options)
    except lb.ToolSchemaError:
        body = None
    return body, time.process_time() - start


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("via", ["from_json_schema", "from_mcp", "ToolSpec()"])
def test_billion_laughs_tool_is_fast_small_or_refused(provider: str, via: str) -> None:
    schema = laughs(20)
    if via == "from_json_schema":
        spec = lb.ToolSpec.from_json_schema("t", "hostile", schema)
    elif via == "from_mcp":
        spec = lb.ToolSpec.from_mcp({"name": "t", "description": "hostile", "inputSchema": schema})
    else:
        spec = lb.ToolSpec(name="t", description="hostile", parameters=schema)
    body, took = _timed_build(provider, tools=[spec])
    assert took < 1.0
    if provider in INLINES:
        assert body is None
    else:
        assert body is not None and len(orjson.dumps(body)) < 10_000


@pytest.mark.parametrize("provider", PROVIDERS)
def test_billion_laughs_response_format_is_fast_small_or_refused(provider: str) -> None:
    body, took = _timed_build(provider, response_format=response_format_of(laughs(20)))
    assert took < 1.0
    if provider in INLINES:
        assert body is None
    else:
        assert body is not None and len(orjson.dumps(body)) < 10_000


def test_gemini_json_schema_option_sends_refs_as_written() -> None:
    spec = lb.ToolSpec(name="t", description="", parameters=laughs(20))
    body = build("gemini", tools=[spec], config={"json_schema": True})
    assert len(orjson.dumps(body)) < 10_000


def test_a_schema_under_the_bound_still_inlines_for_gemini() -> None:
    spec = lb.ToolSpec(name="t", description="", parameters=laughs(8))  # 2**9 leaves
    body = build("gemini", tools=[spec])
    params = body["tools"][0]["functionDeclarations"][0]["parameters"]
    leaf = params["properties"]["x"]
    for _ in range(8):
        leaf = leaf["properties"]["b"]
    assert leaf == {"type": "STRING"}


def test_gemini_conversion_counts_what_it_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the linear pre-check (here switched off) the conversion itself stops at the bound:
    a reference graph the pre-check under-counts cannot expand without end."""
    import llmbridge.providers.gemini.schema as gemini_schema

    monkeypatch.setattr(gemini_schema, "check_schema_bounds", lambda *a, **k: None)
    start = time.process_time()
    with pytest.raises(lb.ToolSchemaError, match=f"{MAX_INLINED_SCHEMAS:,} subschemas"):
        gemini_schema.to_gemini_schema(laughs(20), what="tool 't'")
    assert time.process_time() - start < 2.0


def test_dense_reference_cycles_are_bounded_for_gemini() -> None:
    n = 12  # every definition refers to every other: all simple paths, 12! of them
    defs = {
        f"d{i}": {
            "type": "object",
            "properties": {f"p{j}": {"$ref": f"#/$defs/d{j}"} for j in range(n) if j != i},
        }
        for i in range(n)
    }
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}
    body, took = _timed_build("gemini", tools=[lb.ToolSpec(name="t", parameters=schema)])
    assert body is None and took < 2.0


def test_strict_mode_inlining_stops_at_a_recursive_reference() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A", "description": "d"}},
        "$defs": {
            "A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}}}
        },
    }
    spec = lb.ToolSpec(name="t", parameters=schema, strict=True)
    params = build("openai", tools=[spec])["tools"][0]["function"]["parameters"]
    inner = params["properties"]["x"]["properties"]["a"]["anyOf"][0]
    assert inner == {"$ref": "#/$defs/A", "description": "x"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_response_format_nested_500_deep_is_a_schema_error(provider: str) -> None:
    with pytest.raises(lb.ToolSchemaError, match="nests deeper"):
        build(provider, response_format=response_format_of(nested(500)))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_spec_built_directly_600_deep_is_a_schema_error(provider: str) -> None:
    spec = lb.ToolSpec(name="t", description="", parameters=nested(600))
    with pytest.raises(lb.ToolSchemaError, match="nests deeper"):
        build(provider, tools=[spec])


def test_prompt_mode_response_format_nested_deep_is_a_schema_error() -> None:
    from llmbridge.structured.prompt import format_instructions

    with pytest.raises(lb.ToolSchemaError, match="nests deeper"):
        format_instructions(response_format_of(nested(500)))


def test_bounds_accept_ordinary_schemas() -> None:
    check_schema_bounds(nested(60), inlined=True)
    check_schema_bounds(laughs(12), inlined=True)  # 2**13 leaves: under the bound
    with pytest.raises(lb.ToolSchemaError):
        check_schema_bounds(laughs(14), inlined=True)
    check_schema_bounds(laughs(20))  # sent with its $refs: only the nesting counts


def test_validate_arguments_nested_1500_deep_is_an_arguments_error() -> None:
    spec = lb.ToolSpec.from_json_schema(
        "t", "", {"type": "object", "properties": {"a": {"type": "object"}}}
    )
    deep: Any = 1
    for _ in range(1_500):
        deep = {"a": deep}
    with pytest.raises(lb.ToolArgumentsError, match="nest deeper than 128"):
        spec.validate_arguments({"a": deep})
    listed: Any = 1
    for _ in range(1_500):
        listed = [listed]
    with pytest.raises(lb.ToolArgumentsError, match="nest deeper"):
        spec.validate_arguments({"a": {"b": listed}})
    shallow: Any = 1
    for _ in range(100):
        shallow = {"a": shallow}
    assert spec.validate_arguments({"a": shallow}) == {"a": shallow}


def test_arguments_error_against_a_huge_enum_is_bounded() -> None:
    values = [str(i) for i in range(100_000)]
    spec = lb.ToolSpec.from_json_schema(
        "t", "", {"type": "object", "properties": {"v": {"enum": values}}, "required": ["v"]}
    )
    with pytest.raises(lb.ToolArgumentsError) as caught:
        spec.validate_arguments({"v": "nope"})
    message = str(caught.value)
    assert len(message) < 1_000
    assert "v:" in message and "'nope'" in message and "'0'" in message


def test_arguments_error_with_many_problems_is_bounded() -> None:
    spec = lb.ToolSpec.from_json_schema(
        "t",
        "",
        {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}},
    )
    with pytest.raises(lb.ToolArgumentsError) as caught:
        spec.validate_arguments({"xs": ["a" * 10_000] * 5_000})
    message = str(caught.value)
    assert len(message) < 8_000
    assert "4980 more problems" in message
    assert message.endswith("Call the tool again with corrected arguments.")

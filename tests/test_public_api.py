"""The public surface is pinned: contract names exist, ``__all__`` says exactly what is public."""

from __future__ import annotations

import subprocess
import sys

import llmbridge as lb

CONTRACT = {
    "Client", "ChatMessage", "ChatResponse", "ToolSpec", "LLMBridgeError", "TextDelta",
    "ReasoningDelta", "ToolCallStart", "ToolCallChunk", "ToolCallEnd", "Finish", "Usage",
    "SyncClient", "ToolArgumentsError",
    # structured output, MCP, across providers, hosted tools (issues 20, 21, 23, 25)
    "PartialObject", "StructuredOutputError", "connect_mcp_servers", "ToolRegistry",
    "ModelSwitch", "WebSearch", "CodeExecution", "FileSearch", "ImageGeneration",
    "HostedMCP", "Citation", "ApprovalRequest", "ApprovalResponse", "Telemetry",
}  # fmt: skip


def test_contract_events_carry_their_type_names() -> None:
    kinds = {
        lb.PartialObject: "partial_object",
        lb.ModelSwitch: "model_switch",
        lb.ApprovalRequest: "approval_request",
    }
    for cls, kind in kinds.items():
        assert cls.type == kind
    assert {"id", "server", "tool", "arguments"} <= set(lb.ApprovalRequest.__dataclass_fields__)
    assert {"url", "title", "cited_text"} <= set(lb.Citation.__dataclass_fields__)


def test_contract_names_are_exported() -> None:
    assert CONTRACT <= set(lb.__all__)
    for name in lb.__all__:
        assert hasattr(lb, name), name


def test_all_matches_public_names() -> None:
    public = {n for n in dir(lb) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(lb, n)).__name__ == "module"}
    assert set(lb.__all__) == (public - modules) | {"__version__"}


def test_every_error_shares_one_root() -> None:
    for name in lb.__all__:
        obj = getattr(lb, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning):
            assert issubclass(obj, lb.LLMBridgeError), name


def test_import_loads_no_provider_and_touches_no_network() -> None:
    code = (
        "import sys, llmbridge;"
        "bad=[m for m in sys.modules if m.startswith(('llmbridge.providers.openai','llmbridge.providers.anthropic',"
        "'llmbridge.providers.gemini','llmbridge.fallback.', 'openai', 'anthropic', 'google'))];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_request_models_sit_below_the_tools_package() -> None:
    """``ToolSpec`` is a request model: building requests never loads ``llmbridge.tools``, and
    every old import path names the same class."""
    code = (
        "import sys, llmbridge.types as t;"
        "t.ChatRequest(model='m', messages=[], tools=[t.ToolSpec(name='f')]);"
        "print(sorted(m for m in sys.modules if m.startswith('llmbridge.tools')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

    import llmbridge.messages
    import llmbridge.request
    import llmbridge.tools
    import llmbridge.tools.spec
    import llmbridge.types

    for where in (llmbridge.tools, llmbridge.tools.spec, llmbridge.types, lb):
        assert where.ToolSpec is llmbridge.request.ToolSpec
    assert lb.ChatResponse is llmbridge.messages.ChatResponse

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
    shadows = {"ConnectionError", "TimeoutError"}
    assert set(lb.__all__) == (public - modules - shadows) | {"__version__"}
    assert len(lb.__all__) == len(set(lb.__all__))


def test_star_import_never_hides_a_builtin_but_the_attributes_stay() -> None:
    """``from llmbridge import *`` leaves ``ConnectionError``/``TimeoutError`` as Python's own;
    ``lb.ConnectionError`` and ``from llmbridge import TimeoutError`` still give ours."""
    import builtins

    namespace: dict[str, object] = {}
    exec("from llmbridge import *", namespace)
    assert "Client" in namespace and "LLMBridgeError" in namespace
    shadowing = {n for n in namespace if n != "__builtins__" and hasattr(builtins, n)}
    assert shadowing == set(), shadowing
    assert issubclass(lb.ConnectionError, builtins.ConnectionError)
    assert issubclass(lb.TimeoutError, builtins.TimeoutError)
    assert issubclass(lb.TimeoutError, lb.TransportError)
    from llmbridge import TimeoutError as Ours

    assert Ours is lb.TimeoutError is lb.errors.TimeoutError


def test_the_lazy_table_and_the_type_checking_block_name_the_same() -> None:
    """``__init__`` writes its lazy names twice, once for the runtime (``_LAZY``) and once for
    type checkers (``if TYPE_CHECKING:``); this holds the two equal, module by module."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(lb.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If))
    seen: dict[str, set[str]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        module = "." * node.level + (node.module or "")
        seen.setdefault(module, set()).update(a.name for a in node.names)
        assert all(a.asname == a.name for a in node.names), "write `import X as X` (a re-export)"
    assert seen == {m: set(names) for m, names in lb._LAZY.items()}


def test_every_error_shares_one_root() -> None:
    for name in lb.__all__:
        obj = getattr(lb, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning):
            assert issubclass(obj, lb.LLMBridgeError), name


def test_import_loads_no_provider_and_touches_no_network() -> None:
    code = (
        "import sys, llmbridge;"
        "bad=[m for m in sys.modules if m.startswith(('llmbridge.providers.openai','llmbridge.providers.anthropic',"
        "'llmbridge.providers.gemini','llmbridge.prompt_tools.', 'openai', 'anthropic', 'google'))];"
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
    import llmbridge.types

    for where in (llmbridge.tools, llmbridge.types, lb):
        assert where.ToolSpec is llmbridge.request.ToolSpec
    assert lb.ChatResponse is llmbridge.messages.ChatResponse

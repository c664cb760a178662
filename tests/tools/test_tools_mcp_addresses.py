"""Where the MCP client's names live: one package, ``llmbridge.mcp``, exporting every public
name (each defined in one module under it); ``llmbridge`` re-exports the few it did before;
``llmbridge.tools`` no longer has them (it is a floor below: reaching up for them would close
an import circle); the flat ``llmbridge.tools.mcp_*`` modules are gone; importing ``llmbridge.mcp`` loads no ``mcp`` SDK."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import llmbridge
import llmbridge.mcp
import llmbridge.tools


def test_every_public_name_has_one_defining_module_under_llmbridge_mcp() -> None:
    for name in llmbridge.mcp.__all__:
        value = getattr(llmbridge.mcp, name)
        home = getattr(value, "__module__", "")
        assert home.startswith("llmbridge.mcp."), (name, home)
        assert name in importlib.import_module(home).__all__, (name, home)


def test_llmbridge_gives_the_same_objects_and_llmbridge_tools_none() -> None:
    for name in ("connect_mcp_servers", "MCPError", "MCPConfigError", "ElicitationRequest"):
        assert getattr(llmbridge, name) is getattr(llmbridge.mcp, name)
    for name in ("MCPServers", "connect_stdio", "MCPOAuth", "MCPResource"):
        assert not hasattr(llmbridge.tools, name)


@pytest.mark.parametrize("old", ["mcp", "mcp_servers", "mcp_connection", "mcp_oauth"])
def test_the_flat_modules_are_gone(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"llmbridge.tools.{old}")


def test_importing_llmbridge_mcp_loads_no_sdk() -> None:
    code = (
        "import sys, llmbridge, llmbridge.mcp; llmbridge.mcp.MCPError; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""Reading ``mcpServers`` configs and naming many servers' tools (no servers started)."""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.mcp import load_mcp_config
from llmbridge.mcp.hub.config import MCPHttpServerConfig, MCPStdioServerConfig
from llmbridge.mcp.hub.names import assign_tool_names, safe_tool_name

EXAMPLE = Path(__file__).parents[2] / "examples" / "mcp_servers.json"


def test_the_standard_shape_with_variables_and_disabled_entries(tmp_path: Path) -> None:
    raw = {
        "mcpServers": {
            "files": {"command": "npx", "args": ["-y", "srv", "${HOME_DIR}"], "cwd": "${HOME_DIR}"},
            "docs": {
                "url": "https://docs.example/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
                "timeout": 5,
                "approval": "always",
            },
            "vscode": {"type": "stdio", "command": "srv", "env": {"LEVEL": "${LEVEL:-info}"}},
            "off": {"command": "x", "args": ["${UNSET}"], "disabled": True},
            "off_too": {"command": "x", "disabled": "true"},  # hand-written JSON says it so
        }
    }
    env = {"HOME_DIR": "/home/a", "TOKEN": "t0k"}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(raw))
    for source in (raw, path, str(path), raw["mcpServers"]):
        servers = load_mcp_config(source, environ=env)  # type: ignore[arg-type]
        assert list(servers) == ["files", "docs", "vscode"]
    files, docs, vscode = servers.values()
    assert isinstance(files, MCPStdioServerConfig) and files.args == ["-y", "srv", "/home/a"]
    assert files.cwd == "/home/a" and files.approval_for("anything") == "never"
    assert isinstance(docs, MCPHttpServerConfig)
    assert docs.headers == {"Authorization": "Bearer t0k"} and docs.timeout == 5
    assert docs.approval_for("search") == "always"
    assert isinstance(vscode, MCPStdioServerConfig) and vscode.env == {"LEVEL": "info"}


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"args": ["x"]}, None, "needs 'command'"),
        ({"command": "x", "args": "not-a-list"}, "args", "args"),
        ({"url": "ftp://x"}, "url", "http:// or https://"),
        ({"command": "x", "timeout": -1}, "timeout", "greater than 0"),
        ({"command": "x", "approval": "sometimes"}, "approval", "approval"),
        ({"command": "x", "env": {"K": "${NOPE}"}}, "env.K", r"\$\{NOPE\}"),
        ({"type": "websocket", "url": "http://x"}, "type", "not supported"),
        ({"type": "grpc", "url": "http://x"}, "type", "not supported"),
        ("npx srv", None, "expected an object"),
    ],
)
def test_a_bad_entry_names_the_server_and_the_field(
    entry: Any, field: str | None, message: str
) -> None:
    with pytest.raises(lb.MCPConfigError, match=message) as info:
        load_mcp_config({"mcpServers": {"good": {"command": "ok"}, "bad": entry}}, environ={})
    assert info.value.server == "bad" and info.value.field == field
    assert "'bad'" in str(info.value)
    assert isinstance(info.value, lb.ConfigurationError)


def test_unreadable_files_and_shapes(tmp_path: Path) -> None:
    with pytest.raises(lb.MCPConfigError, match="cannot read"):
        load_mcp_config(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(lb.MCPConfigError, match="not JSON"):
        load_mcp_config(tmp_path / "bad.json")
    with pytest.raises(lb.MCPConfigError, match="must be an object"):
        load_mcp_config({"mcpServers": ["a"]})


def test_the_example_config_loads() -> None:
    servers = load_mcp_config(EXAMPLE, environ={"DOCS_TOKEN": "x", "HOME": "/h"})
    assert servers


RULE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")  # OpenAI's rule + Gemini's first letter


def test_names_are_unique_predictable_and_within_every_providers_rules() -> None:
    tools = {
        "github": ["search", "create_issue", "get.file", "3d-view"],
        "docs": ["search", "read"],
        "my server": ["read", "x" * 80],
        "a": ["b__c"],
        "b": [],
    }
    names = assign_tool_names(tools)
    assert names[("github", "search")] == "github__search"
    assert names[("docs", "search")] == "docs__search"
    assert names[("github", "create_issue")] == "create_issue"
    assert names[("github", "get.file")] == "get_file"
    assert names[("github", "3d-view")] == "_3d-view"
    assert names[("docs", "read")] == "docs__read"
    assert names[("my server", "read")] == "my_server__read"
    assert len(set(names.values())) == len(names)
    assert all(RULE.match(n) for n in names.values()), names
    long = names[("my server", "x" * 80)]
    assert len(long) == 64 and long == safe_tool_name("x" * 80)
    # the same input gives the same names, whatever order the servers answered in
    assert assign_tool_names(tools) == names
    assert assign_tool_names({"x": ["a__b"], "a": ["b"], "y": ["b"]}) == {
        ("x", "a__b"): "a__b",
        ("a", "b"): "a__b_2",
        ("y", "b"): "y__b",
    }


def test_connect_checks_before_starting_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    async def enter(config: Any, **kw: Any) -> None:
        async with lb.connect_mcp_servers(config, **kw):
            pytest.fail("nothing may start")

    good = {"mcpServers": {"a": {"command": "never-started"}}}
    with pytest.raises(lb.MCPConfigError, match=r"approval= names server\(s\) \['b'\]"):
        anyio.run(functools.partial(enter, good, approval={"b": "always"}))
    with pytest.raises(lb.MCPConfigError, match="'a'"):
        anyio.run(functools.partial(enter, {"mcpServers": {"a": {"url": "x"}}}))
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(lb.ConfigurationError, match=r"pip install 'llmbridge\[mcp\]'"):
        anyio.run(functools.partial(enter, good))


@pytest.mark.parametrize(
    ("entry", "field", "meant"),
    [
        ({"command": "npx", "arg": ["-y", "server"]}, "arg", "args"),
        ({"comand": "npx"}, "comand", "command"),
        ({"url": "https://h/mcp", "header": {"x": "y"}}, "header", "headers"),
        ({"command": "npx", "envs": {"K": "v"}}, "envs", "env"),
    ],
)
def test_a_typo_in_an_entry_is_caught_before_any_server_starts(
    entry: dict[str, Any], field: str, meant: str
) -> None:
    """Issue 44, item 3: ``"arg"`` for ``"args"`` started the server without arguments, and it
    failed 30 s later; now it is an ``MCPConfigError`` naming the field, and nothing starts."""

    async def enter() -> None:
        async with lb.connect_mcp_servers({"mcpServers": {"srv": entry}}):
            pytest.fail("nothing may start")

    with pytest.raises(lb.MCPConfigError) as caught:
        anyio.run(enter)
    assert (caught.value.server, caught.value.field) == ("srv", field)
    assert f"unknown field {field!r}; did you mean {meant!r}?" in str(caught.value)


def test_other_clients_settings_are_left_alone() -> None:
    entry = {"command": "npx", "autoApprove": ["x"], "description": "d", "envFile": ".env"}
    (config,) = load_mcp_config({"mcpServers": {"srv": entry}}).values()
    assert isinstance(config, MCPStdioServerConfig) and config.command == "npx"

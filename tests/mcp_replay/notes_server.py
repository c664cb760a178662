"""A small MCP server written with the ``mcp`` package, for the MCP replay tests:
``python notes_server.py`` (stdio). Tools ``add`` and ``now`` (the time: it differs in every
run), a resource ``notes://today`` and a prompt ``summarise``."""

from __future__ import annotations

import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def now() -> str:
    """The server's clock."""
    return f"{time.time():.6f}"


@server.resource("notes://today")
def today() -> str:
    """Today's notes."""
    return "buy milk"


@server.prompt()
def summarise(topic: str) -> str:
    """Ask for a summary."""
    return f"Summarise {topic}."


if __name__ == "__main__":
    server.run("stdio")

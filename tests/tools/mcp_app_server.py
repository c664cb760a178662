"""An MCP server for the multi-server tests: ``python mcp_app_server.py NAME stdio|http [PORT]``.

Written with the SDK's high-level ``MCPServer`` (mcp 2.x). Every instance has ``search`` (so two
instances collide), ``whoami`` (its NAME and the ``MCP_SECRET`` it was given), ``speak`` (audio),
``link`` (a resource link and an embedded text resource), ``slow`` (sleeps), ``die`` (exits the
process: a crashed server), ``grow`` (adds a tool and notifies ``tools/list_changed``) and
``ask_llm`` (asks the client's model through ``sampling/createMessage``); a prompt ``greet``.
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import base64
import os
import sys

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage

NAME = sys.argv[1]
server = MCPServer(NAME)


@server.tool()
def search(query: str) -> str:
    """Search this server's notes."""
    return f"{NAME} found {query}"


@server.tool()
def whoami() -> str:
    """Name this server and the secret it was started with."""
    return f"{NAME} secret={os.environ.get('MCP_SECRET', '-')} pid={os.getpid()}"


@server.tool()
def speak() -> list[types.ContentBlock]:
    """Say something (audio)."""
    wav = base64.b64encode(b"RIFF....WAVEfmt fake").decode()
    return [types.TextContent(text="here:"), types.AudioContent(data=wav, mime_type="audio/wav")]


@server.tool()
def link() -> list[types.ContentBlock]:
    """Point at a file."""
    return [
        types.ResourceLink(
            name="report", uri="file:///tmp/report.pdf", mime_type="application/pdf",
            description="Q3 report",
        ),
        types.EmbeddedResource(
            resource=types.TextResourceContents(uri="memo://1", mime_type="text/plain", text="memo body")
        ),
    ]  # fmt: skip


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "done"


@server.tool()
def die() -> str:
    """Crash the server process."""
    sys.stderr.write("dying on request\n")
    sys.stderr.flush()
    os._exit(7)


@server.tool()
async def grow(ctx: Context) -> str:
    """Add a tool named 'extra' and tell the client."""

    def extra() -> str:
        """A tool that appeared later."""
        return "extra!"

    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Ask the client's model."""
    result = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(text=question))],
        max_tokens=50,
        system_prompt="Answer briefly.",
    )
    content = result.content
    return f"model {result.model} said: {getattr(content, 'text', content)}"


@server.prompt()
def greet(who: str) -> list[Message]:
    """Greet someone."""
    return [UserMessage(f"Say hi to {who}."), AssistantMessage("Hi!")]


def main() -> None:
    if sys.argv[2] == "stdio":
        anyio.run(server.run_stdio_async)
    else:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(),
            host="127.0.0.1",
            port=int(sys.argv[3]),
            log_level="warning",
        )


if __name__ == "__main__":
    main()

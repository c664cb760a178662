"""An MCP server that talks back: ``python mcp_interact_server.py stdio|http [PORT]``.

Written with the SDK's ``MCPServer`` (mcp 2.x). Tools: ``book`` (form elicitation: name, age,
email, size enum, extras multi-select, newsletter flag), ``sign_in`` (URL elicitation),
``roots`` (lists the client's roots), ``roots_changes`` (how many
``notifications/roots/list_changed`` it got), ``work`` (reports progress), ``chatter`` (logs
once at every MCP level from the one ``logging/setLevel`` asked for, which ``SET_LEVEL=hangs``
or ``fails`` in its environment makes it never answer or refuse; the ``warning`` line carries
the ``MCP_SECRET`` it was given), ``sample``
(asks the client's model with preferences, stop sequences, temperature, a system prompt and
the ``includeContext`` its ``include`` names), ``sampling_capability`` (what the client
announced for sampling), ``elicitation_capability`` (and for elicitation), ``whoami`` (says its ``MCP_SECRET``), ``echo``
and ``sample_tools`` (asks with a ``lookup`` tool the model may call, then sends its result
back in a second request).
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import os
import sys
import warnings
from typing import Any

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")  # the SDK's deprecation warnings (roots, logging, sampling)

server = MCPServer("interact")
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
STATE: dict[str, Any] = {"level": "debug", "roots_changes": 0}


async def _set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    if os.environ.get("SET_LEVEL") == "hangs":
        await anyio.sleep_forever()
    if os.environ.get("SET_LEVEL") == "fails":
        raise ValueError("no such level here")
    STATE["level"] = params.level
    return types.EmptyResult()


async def _roots_changed(ctx: Any, params: Any) -> None:
    STATE["roots_changes"] += 1


server._lowlevel_server.add_request_handler(
    "logging/setLevel", types.SetLevelRequestParams, _set_level
)
server._lowlevel_server.add_notification_handler(
    "notifications/roots/list_changed", types.NotificationParams, _roots_changed
)

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "email": {"type": "string", "format": "email"},
        "size": {"type": "string", "enum": ["S", "M", "L"]},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["wifi", "breakfast"]}},
        "newsletter": {"type": "boolean", "default": False},
    },
    "required": ["name", "age"],
}


@server.tool()
async def book(ctx: Context) -> str:
    """Book a room: asks the user for details."""
    result = await ctx.session.elicit_form("Who is the booking for?", FORM)
    return f"{result.action} {sorted((result.content or {}).items())}"


@server.tool()
async def sign_in(ctx: Context) -> str:
    """Ask the user to sign in at a URL."""
    result = await ctx.session.elicit_url(
        "Sign in to continue", "https://example.com/login?state=abc", "el-1"
    )
    return f"{result.action}"


@server.tool()
async def roots(ctx: Context) -> str:
    """List the client's roots."""
    listed = await ctx.session.list_roots()
    return " ".join(f"{r.uri}|{r.name or ''}" for r in listed.roots) or "(none)"


@server.tool()
def roots_changes() -> int:
    """How many roots/list_changed notifications arrived."""
    return int(STATE["roots_changes"])


@server.tool()
async def work(steps: int, ctx: Context) -> str:
    """Do some steps, reporting progress."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await anyio.sleep(0.01)
    return f"worked {steps}"


@server.tool()
async def chatter(ctx: Context) -> str:
    """Log a line at every level."""
    secret = os.environ.get("MCP_SECRET", "-")
    for level in LEVELS[LEVELS.index(STATE["level"]) :]:
        data = f"{level} line" + (f" token={secret}" if level == "warning" else "")
        await ctx.session.send_log_message(level, data, logger="chat")
    if LEVELS.index(STATE["level"]) <= 1:
        await ctx.session.send_log_message("info", {"structured": True, "n": 1}, logger="chat")
    return "logged"


@server.tool()
async def sample(question: str, ctx: Context, include: str = "thisServer") -> str:
    """Ask the client's model, with preferences (and ``includeContext``: ``include``)."""
    result = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(text=question))],
        max_tokens=77,
        system_prompt="Answer briefly.",
        temperature=0.3,
        stop_sequences=["END"],
        include_context=include,  # type: ignore[arg-type]
        model_preferences=types.ModelPreferences(
            hints=[types.ModelHint(name="claude-3-sonnet"), types.ModelHint(name="medium")],
            cost_priority=0.2,
            speed_priority=0.1,
            intelligence_priority=0.9,
        ),
    )
    content = result.content
    return f"{result.model}|{result.stop_reason}|{getattr(content, 'text', content)}"


def _announced(ctx: Context, name: str) -> str:
    """What the client announced for capability ``name``: ``none``, or its fields set."""
    capabilities = ctx.session.client_capabilities
    found = getattr(capabilities, name, None) if capabilities is not None else None
    if found is None:
        return "none"
    return " ".join(k for k, v in found.model_dump().items() if v is not None) or "plain"


@server.tool()
async def sampling_capability(ctx: Context) -> str:
    """What the client announced for sampling (``none``, or its fields)."""
    return _announced(ctx, "sampling")


@server.tool()
async def elicitation_capability(ctx: Context) -> str:
    """What the client announced for elicitation (``none``, or its modes)."""
    return _announced(ctx, "elicitation")


@server.tool()
async def whoami() -> str:
    """Say the ``MCP_SECRET`` it was given (a server that echoes its own key)."""
    return f"key={os.environ.get('MCP_SECRET', '-')}"


@server.tool()
async def echo(words: str) -> str:
    """Say the words back."""
    return f"echo: {words}"


LOOKUP = types.Tool(
    name="lookup",
    description="Look a word up.",
    input_schema={
        "type": "object",
        "properties": {"word": {"type": "string"}},
        "required": ["word"],
    },
)


@server.tool()
async def sample_tools(question: str, ctx: Context) -> str:
    """Ask the client's model with a tool it may call; answer the call and ask again."""
    messages = [types.SamplingMessage(role="user", content=types.TextContent(text=question))]
    first = await ctx.session.create_message(
        messages, max_tokens=50, tools=[LOOKUP], tool_choice=types.ToolChoice(mode="auto")
    )
    blocks = first.content if isinstance(first.content, list) else [first.content]
    uses = [b for b in blocks if isinstance(b, types.ToolUseContent)]
    if not uses:
        return f"no tool: {first.stop_reason} {[getattr(b, 'text', '') for b in blocks]}"
    use = uses[0]
    messages.append(types.SamplingMessage(role="assistant", content=blocks))
    messages.append(
        types.SamplingMessage(
            role="user",
            content=[
                types.ToolResultContent(
                    tool_use_id=use.id,
                    content=[types.TextContent(text=f"{use.input.get('word')} means hello")],
                )
            ],
        )
    )
    second = await ctx.session.create_message(messages, max_tokens=50, tools=[LOOKUP])
    final = second.content if isinstance(second.content, list) else [second.content]
    text = " ".join(getattr(b, "text", "") for b in final)
    return f"{first.stop_reason}:{use.name}({use.input})|{second.stop_reason}:{text}"


def main() -> None:
    if sys.argv[1] == "stdio":
        anyio.run(server.run_stdio_async)
    else:  # "http PORT", or "sse http PORT": the legacy HTTP+SSE transport (at /sse)
        import uvicorn

        app = server.sse_app() if sys.argv[1] == "sse" else server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="warning")


if __name__ == "__main__":
    main()

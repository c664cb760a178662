"""Provider-run tools: a remote MCP server that asks before it acts, and web search with citations.

    python examples/hosted_tools.py            # live when OPENAI_API_KEY is set
    python examples/hosted_tools.py --replay   # recorded streams: no key, no network

``lb.HostedMCP`` and ``lb.WebSearch`` go in ``tools=`` like function tools, but the *provider*
runs them. The MCP server here needs approval for every call (``approval="always"``, the
default): the first turn ends with an ``ApprovalRequest`` event, the app decides, and its
``lb.ApprovalResponse`` goes back in the next user message; the provider then runs the call
and answers. Web search answers carry ``lb.Citation``s (``response.citations``). Replay mode
serves ``fixtures/openai-responses/hosted_*`` through the real client.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

import llmbridge as lb
from llmbridge.events import ApprovalRequest
from llmbridge.testing import replay_client

MODEL = "openai-responses:gpt-5-2025-08-07"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openai-responses"
DOCS = lb.HostedMCP("https://docs.example.com/mcp", name="docs", allowed_tools=["search_docs"])
SAFE_TOOLS = {"search_docs"}


async def ask_docs(client: lb.Client) -> None:
    messages = [lb.ChatMessage.user("What are the docs' rate limits?")]
    async with client.stream(MODEL, messages, tools=[DOCS]) as stream:
        acc = lb.Accumulator(provider=stream.provider.name)  # raw items are tagged with it
        async for event in stream:
            acc.add(event)
            if isinstance(event, ApprovalRequest):
                print(f"{event.server} wants to run {event.tool}({event.arguments})")
    first = acc.response()
    messages.append(first.message)  # the request stays in the history, as the provider sent it
    answers = [
        lb.ApprovalResponse(ask.id, approve=ask.tool in SAFE_TOOLS)
        for ask in first.approval_requests
    ]
    print("approved" if all(a.approve for a in answers) else "refused")
    messages.append(lb.ChatMessage.user(*answers))
    second = await client.complete(MODEL, messages, tools=[DOCS])
    print(second.text)


async def search(client: lb.Client) -> None:
    where = lb.UserLocation(city="Lisbon", country="PT")
    response = await client.complete(
        MODEL,
        [lb.ChatMessage.user("How many people live in Lisbon?")],
        tools=[lb.WebSearch(allowed_domains=["ine.pt"], user_location=where)],
    )
    print(response.text)
    for cite in response.citations:
        print(f"  [{cite.title}]({cite.url}): {cite.cited_text!r}")


def make_client(replay: bool) -> lb.Client:
    if not replay:
        return lb.Client()  # the key comes from OPENAI_API_KEY
    recorded = [FIXTURES / n for n in ("hosted_mcp_approval", "hosted_mcp_approved",
                                       "hosted_web_search_citation")]  # fmt: skip
    return lb.Client(
        http_client=replay_client(recorded),
        providers={"openai-responses": {"api_key": "replay"}},  # replay never sends it
    )


async def main() -> None:
    replay = "--replay" in sys.argv or not os.environ.get("OPENAI_API_KEY")
    if replay:
        print("(replaying recorded streams)", file=sys.stderr)
    async with make_client(replay) as client:
        await ask_docs(client)
        await search(client)


if __name__ == "__main__":
    anyio.run(main)

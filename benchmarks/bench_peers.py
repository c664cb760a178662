"""llmbridge against the official SDKs, pydantic-ai and LiteLLM on the same long streams.

    python benchmarks/bench_peers.py [--runs 9] [--markdown] [--quick]

Two modes, each with its own floor (httpx + httpx-sse + ``orjson.loads`` per event):

* in-process — bodies served by ``httpx.MockTransport`` (the official ``openai`` /
  ``anthropic`` SDKs take an ``http_client``): floor, llmbridge ``stream()``, raw SDK streaming
  (``create(stream=True)``, text and argument fragments accumulated, arguments parsed once) and
  the SDK's accumulating helper (``.stream()`` + final message);
* loopback — bodies served by ``loopback.py`` in another process over 127.0.0.1: floor and
  llmbridge re-measured there (on the floor's plain ``httpx.AsyncClient``, and on the client
  llmbridge makes for itself, httpx on httpcore's own backends), plus
  pydantic-ai (``Model.request_stream``) and LiteLLM (``acompletion(stream=True)`` +
  ``stream_chunk_builder``), each on the HTTP client it makes for itself (built anew in each
  run, as each run is its own event loop).

Peers that are not installed are skipped. CPU µs per SSE event of this process, median over
interleaved rounds; × = ratio to the floor of the same mode. Benchmark-only: llmbridge never
depends on any of these.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
from httpx_sse import aconnect_sse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stream import MESSAGES, TOOLS, count_events
from harness import http_for, httpx2_for, loopback, machine_note, median_cpu
from streams import FORMATS

import llmbridge as lb

PARAMS = TOOLS[0].parameters
OPENAI_TOOLS: Any = [{"type": "function", "function": {"name": "search", "parameters": PARAMS}}]
ANTHROPIC_TOOLS: Any = [{"name": "search", "input_schema": PARAMS}]
CHAT: Any = [{"role": "user", "content": "go"}]
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
Factory = Callable[[], Awaitable[object]]


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _anthropic_wants_httpx2() -> bool:
    """anthropic >= 2.x talks through ``httpx2`` and rejects ``httpx`` clients."""
    import anthropic._base_client as base

    return installed("httpx2") and hasattr(base, "_reject_httpx_object")


def _check(text: str, args: str | dict[str, Any]) -> None:
    parsed = json.loads(args) if isinstance(args, str) else args
    assert text.startswith("word0 word1 ") and parsed["limit"] == 5, (text[:40], args)


# -- floor and llmbridge (either mode) ----------------------------------------------------------


async def floor(http: httpx.AsyncClient, url: str) -> None:
    parts: list[str] = []
    async with http, aconnect_sse(http, "POST", url, json={}) as source:
        async for sse in source.aiter_sse():
            if sse.data != "[DONE]" and isinstance(orjson.loads(sse.data), dict):
                parts.append(sse.event)


async def llmbridge_stream(
    http: httpx.AsyncClient | None, model: str, base_url: str | None
) -> None:
    """``http=None``: the client llmbridge makes for itself."""
    provider = model.partition(":")[0]
    config: dict[str, Any] = {"api_key": "bench-key"}
    if base_url:
        config["base_url"] = base_url
    async with lb.Client(http_client=http, providers={provider: config}) as client:
        async for _event in client.stream(model, MESSAGES, tools=TOOLS):
            pass


# -- official SDKs ----------------------------------------------------------------------------


async def openai_raw(http: httpx.AsyncClient, base_url: str) -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="bench-key", base_url=base_url, http_client=http)
    text: list[str] = []
    args: list[str] = []
    stream = await client.chat.completions.create(
        model="gpt-4.1-mini", messages=CHAT, tools=OPENAI_TOOLS, stream=True
    )
    async for chunk in stream:
        if chunk.choices:
            delta = chunk.choices[0].delta
            if delta.content:
                text.append(delta.content)
            for call in delta.tool_calls or ():
                if call.function and call.function.arguments:
                    args.append(call.function.arguments)
    _check("".join(text), "".join(args))
    await http.aclose()


async def openai_helper(http: httpx.AsyncClient, base_url: str) -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="bench-key", base_url=base_url, http_client=http)
    async with client.chat.completions.stream(
        model="gpt-4.1-mini", messages=CHAT, tools=OPENAI_TOOLS
    ) as stream:
        async for _event in stream:
            pass
        final = await stream.get_final_completion()
    message = final.choices[0].message
    calls: Any = message.tool_calls
    _check(message.content or "", calls[0].function.arguments)
    await http.aclose()


async def anthropic_raw(http: Any, base_url: str) -> None:
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(api_key="bench-key", base_url=base_url, http_client=http)
    text: list[str] = []
    args: list[str] = []
    stream = await client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=4096,
        messages=CHAT,
        tools=ANTHROPIC_TOOLS,
        stream=True,
    )
    async for event in stream:
        if event.type == "content_block_delta":
            if event.delta.type == "text_delta":
                text.append(event.delta.text)
            elif event.delta.type == "input_json_delta":
                args.append(event.delta.partial_json)
    _check("".join(text), "".join(args))
    await http.aclose()


async def anthropic_helper(http: Any, base_url: str) -> None:
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(api_key="bench-key", base_url=base_url, http_client=http)
    async with client.messages.stream(
        model="claude-sonnet-4-5", max_tokens=4096, messages=CHAT, tools=ANTHROPIC_TOOLS
    ) as stream:
        async for _event in stream:
            pass
        final = await stream.get_final_message()
    blocks: Any = final.content
    _check(blocks[0].text, blocks[1].input)
    await http.aclose()


# -- pydantic-ai and LiteLLM (loopback) -------------------------------------------------------


async def pydantic_ai(fmt: str, base_url: str) -> None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import Model, ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    model: Model
    if fmt == "openai":
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider: Any = OpenAIProvider(base_url=f"{base_url}/v1", api_key="bench-key")
        model = OpenAIChatModel("gpt-4.1-mini", provider=provider)
    else:
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        provider = AnthropicProvider(base_url=base_url, api_key="bench-key")
        model = AnthropicModel("claude-sonnet-4-5", provider=provider)
    params = ModelRequestParameters(
        function_tools=[ToolDefinition(name="search", parameters_json_schema=PARAMS)]
    )
    request = [ModelRequest(parts=[UserPromptPart(content="go")])]
    async with model.request_stream(request, None, params) as stream:
        async for _event in stream:
            pass
        response = stream.get()
    text = "".join(p.content for p in response.parts if p.part_kind == "text")
    call: Any = next(p for p in response.parts if p.part_kind == "tool-call")
    _check(text, call.args_as_dict())
    await provider.client.close()


async def litellm(fmt: str, base_url: str) -> None:
    import litellm as ll

    model = "openai/gpt-4.1-mini" if fmt == "openai" else "anthropic/claude-sonnet-4-5"
    api_base = f"{base_url}/v1" if fmt == "openai" else base_url
    tools = OPENAI_TOOLS
    chunks = []
    stream: Any = await ll.acompletion(
        model=model, api_base=api_base, api_key="bench-key", messages=CHAT, tools=tools,
        stream=True, max_tokens=4096,
    )  # fmt: skip
    async for chunk in stream:
        chunks.append(chunk)
    final: Any = ll.stream_chunk_builder(chunks)
    message = final.choices[0].message
    _check(message.content or "", message.tool_calls[0].function.arguments)


# -- driver -----------------------------------------------------------------------------------


def in_process(fmt: str, body: bytes) -> dict[str, Factory]:
    model = FORMATS[fmt][0]
    url = "https://x.test" + PATHS[fmt]
    variants: dict[str, Factory] = {
        "floor": lambda: floor(http_for(body), url),
        "llmbridge stream()": lambda: llmbridge_stream(http_for(body), model, None),
    }
    if fmt == "openai" and installed("openai"):
        base = "https://x.test/v1"
        variants["openai SDK create(stream=True)"] = lambda: openai_raw(http_for(body), base)
        variants["openai SDK .stream() helper"] = lambda: openai_helper(http_for(body), base)
    if fmt == "anthropic" and installed("anthropic"):
        base = "https://x.test"
        on2 = _anthropic_wants_httpx2()
        http = httpx2_for if on2 else http_for
        note = " [on httpx2, which it requires]" if on2 else ""
        variants[f"anthropic SDK create(stream=True){note}"] = lambda: anthropic_raw(
            http(body), base
        )
        variants[f"anthropic SDK .stream() helper{note}"] = lambda: anthropic_helper(
            http(body), base
        )
    return variants


TLS = httpx.create_ssl_context()


def plain_client() -> httpx.AsyncClient:
    """A plain httpx client per run (each run is its own event loop), its TLS context built once:
    loading the CA bundle (~15 ms) would otherwise be most of a loopback run's CPU time."""
    return httpx.AsyncClient(verify=TLS)


def over_loopback(fmt: str, base: str) -> dict[str, Factory]:
    model = FORMATS[fmt][0]
    url = base + PATHS[fmt]
    llm_base = f"{base}/v1" if fmt == "openai" else base
    variants: dict[str, Factory] = {
        "floor": lambda: floor(plain_client(), url),
        "llmbridge stream()": lambda: llmbridge_stream(plain_client(), model, llm_base),
        "llmbridge stream(), its default client": lambda: llmbridge_stream(None, model, llm_base),
    }
    if installed("pydantic_ai"):
        variants["pydantic-ai request_stream"] = lambda: pydantic_ai(fmt, base)
    if installed("litellm"):
        variants["LiteLLM acompletion(stream=True)"] = lambda: litellm(fmt, base)
    return variants


SKIPPED: list[str] = []


def working(fmt: str, variants: dict[str, Factory]) -> dict[str, Factory]:
    """The variants whose warm-up run succeeds; the others are reported as skipped."""
    import anyio

    ok: dict[str, Factory] = {}
    for name, fn in variants.items():
        try:
            anyio.run(fn)
        except Exception as exc:  # a peer incompatible with what is installed: skip it
            if name == "floor" or name.startswith("llmbridge"):
                raise
            SKIPPED.append(f"{name} ({fmt}): {type(exc).__name__}: {str(exc)[:100]}")
        else:
            ok[name] = fn
    return ok


def measure(runs: int) -> list[dict[str, Any]]:
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    rows: list[dict[str, Any]] = []
    for fmt in PATHS:
        body = FORMATS[fmt][1]()
        per = 1e6 / count_events(body)
        times = median_cpu(working(fmt, in_process(fmt, body)), runs=runs)
        rows += [{"mode": "in-process", "format": fmt, "who": k, "us": v * per,
                  "x": v / times["floor"]} for k, v in times.items()]  # fmt: skip
    with loopback() as base:
        for fmt in PATHS:
            body = FORMATS[fmt][1]()
            per = 1e6 / count_events(body)
            times = median_cpu(working(fmt, over_loopback(fmt, base)), runs=runs)
            rows += [{"mode": "loopback", "format": fmt, "who": k, "us": v * per,
                      "x": v / times["floor"]} for k, v in times.items()]  # fmt: skip
    return rows


def markdown(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Machine: {machine_note()}. Same bytes for everyone (2,000 text deltas + a tool call in "
        f"400 fragments); CPU µs per SSE event of the client process, median of {runs} "
        "interleaved rounds; × = ratio to the floor of the same mode (httpx + httpx-sse + "
        "orjson.loads).",
        "",
        "| mode | format | client | µs / event | × floor |",
        "|---|---|---|---:|---:|",
    ]
    lines += [
        f"| {r['mode']} | {r['format']} | {r['who']} | {r['us']:.2f} | {r['x']:.2f} |" for r in rows
    ]
    lines += [f"\nSkipped: {why}" for why in SKIPPED]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one round, to check the script runs")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    rows = measure(runs)
    if args.markdown:
        print(markdown(rows, runs))
        return
    print(f"{machine_note()}; median of {runs} rounds; CPU µs per SSE event")
    for r in rows:
        print(f"{r['mode']:<11}{r['format']:<11}{r['who']:<36}{r['us']:>9.2f}{r['x']:>8.2f}×")
    for why in SKIPPED:
        print(f"skipped: {why}")


if __name__ == "__main__":
    main()

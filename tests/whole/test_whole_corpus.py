"""Every whole (non-streaming) chat body of ``../shared/corpus`` category J, decoded by the
provider that speaks its API (``whole_response``) and compared with the official SDK's reading
of the same bytes (``expected.json``): text, reasoning, tool calls, finish reason, usage (our
convention). J_err bodies go through each provider's ``map_error`` and come out typed.

Routing mirrors the stream suite (``tests/reliability/test_conformance_corpus_all.py``):
presets by host, ``openai-compatible`` for servers without one; what is left unrouted on
purpose says why (``OUT_OF_SCOPE``)."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.registry import available_providers
from llmbridge.providers.whole import whole_response
from llmbridge.testing import check_invariants, decode_collect
from tests import corpus

CHAT = ("openai.chat.completions", "openai_compatible.chat.completions")
ROUTES: dict[str, str | None] = {
    **dict.fromkeys(CHAT, "chat"),
    "openai.responses": "openai-responses",
    "openai_compatible.responses": "openai-responses",
    "anthropic.messages": "anthropic",
    "gemini.generate_content": "gemini",
    "bedrock.converse": "bedrock",
    "bedrock.invoke_model": "anthropic-bedrock",  # Claude's Messages bodies only
    "cohere.v2.chat": "cohere",
    "cohere.v1.chat": None,
    "ollama.chat": "ollama-native",
    "ollama.generate": "ollama-native",
}
OUT_OF_SCOPE = {
    "cohere.v1.chat": "Cohere's v1 chat API, which llmbridge does not call (v2 only)",
    "bedrock.invoke_model": "InvokeModel bodies of a non-Anthropic model family (Titan, Nova, "
    "Llama, Mistral, Cohere, AI21): llmbridge reaches those models through Converse",
}
CONFIG: dict[str, dict[str, Any]] = {
    "azure": {"base_url": "https://contoso.openai.azure.com"},
    "openai-compatible": {"base_url": "https://llm.example.test/v1"},
    "vertex": {"project": "demo-project", "location": "global"},
    "anthropic-vertex": {"project": "demo-project", "location": "global"},
    "bedrock": {"region": "us-east-1"},
    "anthropic-bedrock": {"region": "us-east-1"},
}
REQUEST = lb.ChatRequest(model="any-model", messages=[lb.ChatMessage.user("hi")], stream=False)


def provider_name(entry: dict[str, Any]) -> str | None:
    api, uri = entry["api"], entry.get("uri") or ""
    route = ROUTES[api]
    if route == "anthropic-bedrock" and not _is_messages(entry):
        return None
    if route == "chat":  # a Chat Completions preset of that host, else the generic one
        name = entry["provider"]
        if name in available_providers() and type(_provider(name)).__name__ == "OpenAIChatProvider":
            return name
        return "openai-compatible"
    if route == "gemini" and (entry["provider"] == "vertex" or "aiplatform" in uri):
        return "vertex"
    if route == "anthropic" and "aiplatform" in uri:
        return "anthropic-vertex"
    if route == "anthropic" and "bedrock" in uri:
        return "anthropic-bedrock"
    return route


def _is_messages(entry: dict[str, Any]) -> bool:
    body = json.loads(corpus.body(entry))
    return isinstance(body, dict) and body.get("type") == "message"


@cache
def _provider(name: str) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "test-key", **CONFIG.get(name, {})})
    return create_provider(name, config)


def _entries(category: str) -> list[Any]:
    return [
        p
        for p in corpus.entries(category)
        if p.values[0] is None or p.values[0].get("kind") in ("whole", "error")
    ]


WHOLE = _entries("J")


def _want_usage(api: str, usage: Any) -> tuple[int | None, int | None]:
    """(input, output) tokens of the SDK's usage under our convention (None: not compared)."""
    if not isinstance(usage, dict):
        return None, None
    get = lambda *names: sum(int(usage.get(n) or 0) for n in names)  # noqa: E731
    if api in CHAT:
        return get("prompt_tokens"), get("completion_tokens")
    if api.endswith("responses"):
        return get("input_tokens"), get("output_tokens")
    if api in ("anthropic.messages", "bedrock.invoke_model"):
        steps = [usage, *(i for i in usage.get("iterations") or () if i["type"] == "compaction")]
        parts = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        inputs = sum(int(u.get(n) or 0) for u in steps for n in parts)
        return inputs, sum(int(u.get("output_tokens") or 0) for u in steps)
    if api == "gemini.generate_content":  # tool-use prompts are input, thoughts output
        inputs = get("prompt_token_count", "tool_use_prompt_token_count")
        return inputs, get("candidates_token_count", "thoughts_token_count")
    if api == "bedrock.converse":
        return None, get("outputTokens")
    if api == "cohere.v2.chat":
        tokens = usage.get("tokens") or usage.get("billed_units") or {}
        return int(tokens.get("input_tokens") or 0), int(tokens.get("output_tokens") or 0)
    if api.startswith("ollama"):
        return get("prompt_eval_count"), get("eval_count")
    return None, None


def _app_call_ids(api: str, body: Any) -> set[str] | None:
    """The ids of the calls for the app in ``body`` (the SDK summaries also list the tools the
    provider ran itself, which are no tool calls here); ``None``: every call is the app's."""
    if api in ("anthropic.messages", "bedrock.invoke_model"):
        return {b["id"] for b in body.get("content") or () if b.get("type") == "tool_use"}
    if api == "bedrock.converse":
        content = ((body.get("output") or {}).get("message") or {}).get("content") or ()
        uses = [b["toolUse"] for b in content if isinstance(b.get("toolUse"), dict)]
        return {u["toolUseId"] for u in uses if u.get("type") != "server_tool_use"}
    return None


def _calls(api: str, want: dict[str, Any], body: Any) -> list[tuple[str, Any]]:
    """The app's tool calls as the SDK read them, with what it leaves out put back: Chat's
    legacy ``function_call`` and a custom tool's name (the summary reads neither)."""
    ids = _app_call_ids(api, body)
    calls = []
    for call in want.get("tool_calls") or []:
        if ids is not None and call.get("id") not in ids:
            continue
        arguments = call["arguments"]
        if isinstance(arguments, dict) and set(arguments) == {"__unparsed__"}:
            arguments = {"input": arguments["__unparsed__"]}  # a custom tool's raw input
        calls.append((call["name"], {} if arguments is None else arguments))
    if api in CHAT and body.get("choices"):
        message = body["choices"][0].get("message") or {}
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and legacy.get("name") and not message.get("tool_calls"):
            calls.append((legacy["name"], json.loads(legacy.get("arguments") or "{}")))
        for i, raw in enumerate(message.get("tool_calls") or ()):
            if raw.get("type") == "custom" and i < len(calls):
                custom = raw["custom"]
                calls[i] = (custom["name"], {"input": custom["input"]})
    return calls


def _text(api: str, want: dict[str, Any], body: Any) -> tuple[str, str | None]:
    """(text, reasoning) as the SDK read them; Chat's content given as typed parts (Mistral,
    Databricks) is joined as the stream decoder joins them, a refusal is text too, and
    Bedrock's ``citationsContent`` text (which the summary leaves out) is text."""
    text, reasoning = want.get("text"), want.get("reasoning")
    if isinstance(text, list):
        parts = [p for p in text if isinstance(p, dict)]
        thoughts = [
            t.get("text") or ""
            for p in parts
            if p.get("type") in ("thinking", "reasoning")
            for t in (p.get("thinking") or p.get("summary") or ())
            if isinstance(t, dict)
        ]
        text = "".join(p.get("text") or "" for p in parts if p.get("type") == "text")
        reasoning = "".join(thoughts) or reasoning
    text = text or ""
    if api in CHAT:
        text += want.get("refusal") or ""
    if api == "bedrock.converse":
        content = ((body.get("output") or {}).get("message") or {}).get("content") or ()
        pieces = []
        for block in content:
            if isinstance(block.get("text"), str):
                pieces.append(block["text"])
            elif isinstance(block.get("citationsContent"), dict):
                cited = block["citationsContent"].get("content") or ()
                pieces.extend(c.get("text") or "" for c in cited)
        text = "".join(pieces)
    return text, reasoning if isinstance(reasoning, str) else None


@pytest.mark.parametrize("entry", WHOLE)
def test_every_whole_body_reads_as_the_sdk_reads_it(entry: dict[str, Any]) -> None:
    name = provider_name(entry)
    if name is None:
        pytest.skip(f"out of scope: {OUT_OF_SCOPE[entry['api']]}")
    want = corpus.expected(entry)
    raw = corpus.body(entry)
    decoder = _provider(name).prepare(REQUEST).new_decoder()
    events, error = decode_collect(decoder, [raw], framing="whole")
    check_invariants(events, complete=error is None)  # the events themselves, as for streams
    try:
        got = whole_response(_provider(name), REQUEST, raw)
    except lb.LLMBridgeError as exc:
        failed: lb.LLMBridgeError | None = exc
    except Exception as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"a non-llmbridge exception escaped: {exc!r}")
    else:
        failed = None
    if failed is not None:  # typed; fine where the SDK read no answer either
        unread = entry["expected_status"] != "ok" or _sdk_says_unfinished(want)
        assert unread, f"{entry['file']}: {failed!r}"
        return
    if entry["expected_status"] != "ok" or want is None:
        return  # the SDK could not read it (enum numbers...): any typed reading is fine
    api = entry["api"]
    body = json.loads(raw)
    text, reasoning = _text(api, want, body)
    assert got.text == text, entry["file"]
    assert [(c.name, c.arguments) for c in got.tool_calls] == _calls(api, want, body), entry["file"]
    if reasoning:  # the SDK summary puts a blank line between reasoning items; the fold not
        assert _joined(got.reasoning) == _joined(reasoning), entry["file"]
    raw_finish = want.get("finish_reason")
    if isinstance(raw_finish, str) and not api.endswith("responses"):
        assert (got.raw_finish_reason or "").lower() == raw_finish.lower(), entry["file"]
    inputs, outputs = _want_usage(api, want.get("usage"))
    if outputs is not None:
        assert got.usage is not None, entry["file"]
        assert got.usage.output_tokens == outputs, entry["file"]
        if inputs is not None:
            assert got.usage.input_tokens == inputs, entry["file"]


def _joined(text: str | None) -> str:
    return (text or "").replace("\n\n", "")


def _sdk_says_unfinished(want: Any) -> bool:
    """The SDK read no answer: a response still queued or failed, an error object in a 200."""
    if not isinstance(want, dict):
        return False
    if want.get("status") in ("queued", "in_progress", "failed"):
        return True
    return "error" in (want.get("top_level_extra_fields") or ()) and not want.get("n_choices")


def test_the_whole_corpus_is_routed() -> None:
    if not corpus.present():
        corpus.missing()
    items = [e for e in corpus.manifest() if e["category"] == "J"]
    assert len(WHOLE) == len(items), "every whole body is a test case"
    unknown = {e["api"] for e in items} - set(ROUTES)
    assert not unknown, f"whole bodies of an api nobody routes: {unknown}"
    routed = Counter(provider_name(e) for e in items)
    assert sum(n for name, n in routed.items() if name is not None) >= 2500
    assert {"anthropic", "gemini", "vertex", "bedrock", "cohere", "ollama-native"} <= set(routed)
    assert {"openai", "openai-responses", "openai-compatible", "anthropic-bedrock"} <= set(routed)


ERROR_ROUTES: dict[str, str] = {
    **{api: route for api, route in ROUTES.items() if route is not None and route != "chat"},
    "openai.error": "openai",
    "anthropic.error": "anthropic",
    "gemini.error": "gemini",
}
"""The chat APIs' error bodies (J_err); embeddings, rerank and Interactions errors are read
by their own suites."""
BY_STATUS: list[tuple[range, type[lb.APIError]]] = [
    (range(401, 402), lb.AuthenticationError),
    (range(403, 404), lb.PermissionDeniedError),
    (range(404, 405), lb.NotFoundError),
    (range(429, 430), lb.RateLimitError),
    (range(400, 500), lb.InvalidRequestError),
    (range(500, 600), lb.ServerError),
]
REFINED: dict[int, tuple[type[lb.APIError], ...]] = {
    400: (lb.AuthenticationError,),  # Gemini's API_KEY_INVALID comes as a 400
    403: (lb.AuthenticationError,),  # AWS: an expired or wrong signature comes as a 403
}
"""Statuses a provider's own error code makes more specific."""
ERRORS = _entries("J_err")


def _error_provider(entry: dict[str, Any]) -> str | None:
    api = entry["api"]
    if api in CHAT:
        return provider_name(entry)
    route = ERROR_ROUTES.get(api)
    if route is None or entry.get("kind") not in ("whole", "error"):
        return None
    if route == "anthropic-bedrock" or (route == "anthropic" and "bedrock" in entry.get("uri", "")):
        return "anthropic-bedrock"
    return provider_name({**entry, "api": api}) if api in ROUTES else route


@pytest.mark.parametrize("entry", ERRORS)
def test_every_error_body_is_a_typed_error(entry: dict[str, Any]) -> None:
    name = _error_provider(entry)
    if name is None:
        pytest.skip(f"{entry['api']}: an API llmbridge does not call (Cohere v1), or not chat")
    status = entry.get("status_code") or 400  # vercel/ai kept no status: read as a 400
    headers = entry.get("response_headers") or {}
    error = _provider(name).map_error(status=status, headers=headers, body=corpus.body(entry))
    assert isinstance(error, lb.APIError), repr(error)
    assert error.status == status
    want = (next(kind for codes, kind in BY_STATUS if status in codes), *REFINED.get(status, ()))
    assert isinstance(error, want), f"{entry['file']}: {error!r} for {status}"
    expected = corpus.expected(entry) or {}
    message = (
        expected.get("body", {}).get("message") if isinstance(expected.get("body"), dict) else None
    )
    if isinstance(message, str) and message:
        assert message[:60] in str(error), f"{entry['file']}: {error}"

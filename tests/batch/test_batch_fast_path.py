"""The batch fast path (``llmbridge.batch.template``) writes, for every request, the bytes and
warnings the slow path (``build_request`` + the provider's ``prepare()`` + the adapter's
``line()``) writes, and raises what it raises; per batch API, for varied requests."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.batch import engine
from llmbridge.batch.calls import BatchCall
from llmbridge.batch.template import BARE, STRING, Lines, Template, plain, same, sentinel
from llmbridge.batch.types import BatchPart
from llmbridge.parts import CachePoint, ImagePart, TextPart, ToolCallPart

MODELS = {
    "openai": ("openai:gpt-4.1-mini", {}),
    "openai-responses": ("openai-responses:gpt-5-nano", {}),
    "azure": (
        "azure:my-deployment",
        {"api_version": "2024-10-21", "base_url": "https://x.openai.azure.com"},
    ),
    "groq": ("groq:llama-3.3-70b-versatile", {}),
    "together": ("together:meta-llama/Llama-3.3-70B-Instruct-Turbo", {}),
    "mistral": ("mistral:mistral-small-latest", {}),
    "xai": ("xai:grok-4", {}),
    "anthropic": ("anthropic:claude-haiku-4-5", {}),
    "gemini": ("gemini:gemini-2.5-flash", {}),
}


class Answer(BaseModel):
    value: int
    why: str


def get_weather(city: str) -> str:
    """The weather in a city."""
    return city


SPEC = lb.ToolSpec(
    name="lookup",
    description="Look a word up",
    parameters={"type": "object", "properties": {"word": {"type": "string", "minimum": 1}}},
    strict=True,
)
PIXEL = ImagePart(data=b"\x89PNG\r\n\x1a\n0000", media_type="image/png")
CALL = ToolCallPart(id="call_1", name="get_weather", arguments={"city": "Paris"})

texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "\n", "{}", '"', "\\", "\ue000", sentinel(1), "\u2028", "é€😀"]),
)
plain_parts = st.lists(texts.map(lambda t: TextPart(text=t)), min_size=0, max_size=3)
other_parts = st.sampled_from([PIXEL, CachePoint(), TextPart(text="x", provider_data={"a": 1})])
parts = st.lists(st.one_of(texts.map(lambda t: TextPart(text=t)), other_parts), max_size=3)


@st.composite
def messages(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(texts)  # a bare string
    out: list[Any] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["system", "user", "user", "assistant", "str", "tools"]))
        if kind == "str":
            out.append(draw(texts))
        elif kind == "tools":
            out += [
                lb.ChatMessage.assistant(tool_calls=[CALL]),
                lb.ChatMessage.tool_result("call_1", draw(st.text(min_size=1, max_size=5))),
            ]
        else:
            content = draw(plain_parts if draw(st.booleans()) else parts)
            if kind != "user":  # only user messages take images here
                content = [p for p in content if not isinstance(p, ImagePart)]
            out.append(lb.ChatMessage(role=kind, content=content))
    return out


OPTION_POOL: list[dict[str, Any]] = [
    {},
    {"max_tokens": 32},
    {"max_tokens": 32, "temperature": 0.5, "stop": "END"},
    {"temperature": 1},
    {"temperature": 1.0},
    {"temperature": -0.0, "seed": 7, "top_k": 3},
    {"temperature": 0.0, "seed": 7, "top_k": 3},
    {"tools": [get_weather], "tool_choice": "auto"},
    {"tools": [SPEC, get_weather], "parallel_tool_calls": False},
    {"response_format": Answer},
    {"response_format": Answer, "format_mode": "prompt"},
    {"response_format": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    {"reasoning": lb.ReasoningConfig(effort="low")},
    {"extra": {"b": 1, "a": [1, 2]}},
    {"extra": {"a": [1, 2], "b": 1}},
    {"max_tokens": -5},
    {"tool_choice": "get_weather"},
]
options = st.sampled_from(range(len(OPTION_POOL))).map(lambda n: dict(OPTION_POOL[n]))


def _client(name: str) -> lb.Client:
    config = {"api_key": "sk-test-key", **MODELS[name][1]}
    return lb.Client(providers={name: config})


def _outcome(encode: Any, *args: Any) -> tuple[str, Any]:
    try:
        line, warnings = encode(*args)
    except Exception as exc:  # compared, path against path
        return "raised", (type(exc), str(exc))
    return "line", (line, warnings)


def _lines(client: lb.Client, name: str) -> Lines:
    call, adapter = client._batch_call(MODELS[name][0])
    return Lines(
        call.model, client.build_request, call.prepared, lambda i, p: adapter.line(call, i, p)
    )


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(st.tuples(messages(), options), min_size=1, max_size=6))
def test_the_fast_path_writes_the_slow_paths_bytes_and_warnings(
    name: str, batch: list[tuple[Any, dict[str, Any]]]
) -> None:
    client = _client(name)
    fast, slow = _lines(client, name), _lines(client, name)
    for n, (given_messages, given_options) in enumerate(batch):
        custom_id = f'req-{n}\ue001"é'
        expected = _outcome(slow.slow, custom_id, given_messages, given_options)
        assert _outcome(fast.encode, custom_id, given_messages, given_options) == expected


NEAR_TWINS = [
    ({"temperature": 1}, {"temperature": 1.0}),
    ({"temperature": 0.0}, {"temperature": -0.0}),
    ({"extra": {"a": 1, "b": 2}}, {"extra": {"b": 2, "a": 1}}),
    ({"stop": ["x"]}, {"stop": ("x",)}),
]


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize(("first", "second"), NEAR_TWINS)
def test_options_that_encode_apart_share_no_template(
    name: str, first: dict[str, Any], second: dict[str, Any]
) -> None:
    client = _client(name)
    fast, slow = _lines(client, name), _lines(client, name)
    for n, given_options in enumerate([first, second, first]):
        expected = slow.slow(f"r{n}", f"q{n}", given_options)
        assert fast.encode(f"r{n}", f"q{n}", given_options) == expected


@pytest.mark.parametrize("name", sorted(MODELS))
def test_plain_requests_are_prepared_once_per_shape_and_options(name: str) -> None:
    client = _client(name)
    call, adapter = client._batch_call(MODELS[name][0])
    prepared: list[object] = []

    def prepare(request: Any) -> Any:
        prepared.append(request)
        return call.prepared(request)

    lines = Lines(call.model, client.build_request, prepare, lambda i, p: adapter.line(call, i, p))
    for i in range(50):
        system = lb.ChatMessage.system("Answer briefly.")
        lines.encode(f"r{i}", [system, lb.ChatMessage.user(f"q {i}")], {"max_tokens": 32})
        lines.encode(f"s{i}", f"bare {i}", {"max_tokens": 32})
    assert len(prepared) == 2  # one template per shape
    line, _ = lines.encode("y", [lb.ChatMessage.user("hi", PIXEL)], {})  # not plain
    assert len(prepared) == 3 and b"y" in line


def test_strict_sameness_keeps_apart_what_encodes_apart() -> None:
    assert same({"a": 1, "b": [1.5, "x"]}, {"a": 1, "b": [1.5, "x"]})
    assert not same({"t": 1}, {"t": 1.0}) and not same({"t": True}, {"t": 1})
    assert not same(0.0, -0.0) and not same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same([SPEC], [SPEC.model_copy()]) and same([SPEC], [SPEC])
    assert not same((1,), [1]) and not same([1], [1, 2])


def test_what_is_plain() -> None:
    assert plain("hi") == (((BARE, 1),), ["hi"])
    both = [lb.ChatMessage.system("s"), "u", lb.ChatMessage(role="assistant", content=[])]
    assert plain(both) == ((("system", 1), (STRING, 1), ("assistant", 0)), ["s", "u"])
    for not_plain in (
        "",
        [""],
        [lb.ChatMessage.user("")],
        [lb.ChatMessage.user("a", PIXEL)],
        [lb.ChatMessage.tool_result("c", "r")],
        [{"role": "user", "content": "hi"}],
        (m for m in ["a"]),
        ("a",),
    ):
        assert plain(not_plain) is None


def _texts(messages: list[lb.ChatMessage]) -> list[str]:
    return [p.text for m in messages for p in m.content if isinstance(p, TextPart)]


def test_a_sentinel_met_twice_is_no_template_and_holes_fill_in_line_order() -> None:
    def twice(custom_id: str, messages: list[lb.ChatMessage]) -> tuple[bytes, tuple[str, ...]]:
        return orjson.dumps({"id": custom_id, "a": _texts(messages), "b": _texts(messages)}), ()

    assert Template.of((("user", 1),), {}, twice) is None

    def backwards(custom_id: str, messages: list[lb.ChatMessage]) -> tuple[bytes, tuple[str, ...]]:
        first, second = _texts(messages)
        return orjson.dumps([second + "!", custom_id, first]), ("w",)

    once = Template.of((("user", 2),), {}, backwards)
    assert once is not None and once.order == (2, 0, 1) and once.warnings == ("w",)
    assert once.fill('i"d', ["a\n", "b\u2028"]) == orjson.dumps(["b\u2028!", 'i"d', "a\n"])


class _Kept:
    """A batch adapter that keeps its files' bytes (no IO)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.files = inner, []
        self.max_requests, self.max_bytes, self.sep = 7, inner.max_bytes, inner.sep

    def overhead(self) -> int:
        return int(self.inner.overhead())

    def line(self, call: BatchCall, custom_id: str, prepared: Any) -> bytes:
        return bytes(self.inner.line(call, custom_id, prepared))

    async def submit(self, call: BatchCall, chunk: Any, options: dict[str, Any]) -> BatchPart:
        self.files.append(b"".join([p async for p in chunk.pieces()]))
        return BatchPart(id=f"b{len(self.files)}", status="queued", raw_status="")


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["openai", "anthropic"])
async def test_submit_writes_every_line_and_names_the_request_that_failed(name: str) -> None:
    async with _client(name) as client:
        call, inner = client._batch_call(MODELS[name][0])
        kept = _Kept(inner)
        requests = [lb.BatchRequest(f"r{i}", f"q{i}", max_tokens=8) for i in range(20)]
        job = await engine.submit(call, kept, iter(requests), client.build_request, {})
        assert len(job.parts) == 3 and len(kept.files) == 3
        slow = _lines(client, name)
        expected = [slow.slow(r.id, r.messages, r.options)[0] for r in requests]
        assert kept.sep.join(kept.files) == kept.sep.join(expected)
        bad = [*requests[:3], lb.BatchRequest("bad-one", "q", max_tokens="many")]
        with pytest.raises(lb.UsageError) as caught:
            await engine.submit(call, _Kept(inner), bad, client.build_request, {})
        assert str(caught.value).startswith(
            "batch request 'bad-one': invalid option(s): max_tokens"
        )


def test_a_templates_stand_ins_have_the_requests_own_form() -> None:
    seen: list[Any] = []

    def record(custom_id: str, messages: Any) -> tuple[bytes, tuple[str, ...]]:
        seen.append(messages)
        return orjson.dumps(
            [custom_id, messages if isinstance(messages, str) else repr(messages)]
        ), ()

    Template.of(((BARE, 1),), {}, record)
    Template.of(((STRING, 1), ("system", 1)), {}, record)
    assert seen[0] == sentinel(1)
    assert seen[1][0] == sentinel(1) and isinstance(seen[1][1], lb.ChatMessage)


@pytest.mark.anyio
async def test_a_list_is_split_into_even_jobs_an_iterator_as_it_comes() -> None:
    # Bedrock refuses a job of fewer than 100 records: a list's last job is never a short tail.
    assert engine.even_limit([0] * 50_050, 50_000) == 25_025
    assert engine.even_limit([0] * 50_000, 50_000) == 50_000
    assert engine.even_limit(iter([0] * 50_050), 50_000) == 50_000
    async with _client("openai") as client:
        call, inner = client._batch_call(MODELS["openai"][0])
        requests = [lb.BatchRequest(f"r{i}", f"q{i}", max_tokens=8) for i in range(15)]
        for given, sizes in ((requests, [5, 5, 5]), (iter(requests), [7, 7, 1])):
            kept = _Kept(inner)
            await engine.submit(call, kept, given, client.build_request, {})
            assert [f.count(b'"custom_id"') for f in kept.files] == sizes

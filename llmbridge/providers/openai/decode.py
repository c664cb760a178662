"""Chat Completions SSE stream → normalized events (sans-IO).

Follows https://platform.openai.com/docs/api-reference/chat/streaming and the compatible
servers' variants (see ``tool_calls.py`` for tool-call fragments). Rules:

* one ``orjson.loads`` per ``data:`` line; ``[DONE]`` ends the stream; SSE comments never reach
  us; ``event: error`` (Groq) and an ``error`` object in any chunk (OpenAI, OpenRouter) raise a
  typed ``APIError`` *after* the events of that chunk were returned (the next ``feed`` or
  ``close`` raises); non-JSON data raises ``MalformedStreamError``; empty data is skipped
  (httpx-sse dispatches an empty event at each blank line once an ``id:`` was seen);
* only choice 0 is followed; text from ``delta.content`` (a string, or a list of typed parts:
  ``text`` / ``thinking`` (Mistral) / ``reasoning`` summaries (Databricks)); reasoning from
  ``reasoning_content`` (DeepSeek, vLLM) else ``reasoning`` (OpenRouter, Groq, Ollama) else
  ``reasoning_details[]`` text. ``reasoning_details`` items are also kept whole (merged per
  ``index``, ``round_trip.py``) and emitted once when the reasoning run ends (before the next
  text, tool call or the finish) as ``ReasoningDelta("", provider_data={"reasoning_details":
  [...]})``, so the next turn can send them back; ``refusal`` deltas are surfaced as text, the finish reason
  becomes ``content_filter`` and ``Finish.provider_data["refusal"]`` holds the refusal;
* ``annotations`` ``url_citation`` (search models, OpenRouter's web plugin) → ``Citation``;
* ``finish_reason`` closes the open tool calls; ``Finish`` waits for ``[DONE]`` (or the end of
  the body) so the trailing usage chunk (``choices: []``) is merged in. Usage is the last
  snapshot seen (also on chunks with choices, or in Groq's ``x_groq``), never a sum;
* a body that ends with neither a finish_reason nor ``[DONE]`` raises ``StreamTruncatedError``
  from ``close()``; ``[DONE]`` without a finish_reason finishes as ``stop`` / ``tool_calls``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from ...events import Finish, ReasoningDelta, StreamEvent, StreamStart, TextDelta
from ..base import BaseDecoder
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .hosted import annotation_citations
from .round_trip import DETAILS, DetailCollector
from .tool_calls import ToolCallTracker
from .usage import convert_usage

__all__ = ["ChatCompletionsDecoder"]

_loads = orjson.loads


class ChatCompletionsDecoder(BaseDecoder):
    """Feed SSE events with ``feed(event, data)``; call ``close()`` once at end of body."""

    def __init__(self, *, provider: str, use_index: bool = True) -> None:
        self._provider = provider
        self._calls = ToolCallTracker(use_index=use_index, provider=provider)
        self._details = DetailCollector()
        self._detail_items = self._details.items  # the hot path's check: no method call
        self._started = False
        self._fast = False
        """Started and not halted: ``feed`` may try the hot path."""
        self._done = False
        self._halted = False
        """No more input is decoded: ``[DONE]`` came, the body ended, or an error was raised."""
        self._failed: LLMBridgeError | None = None
        self._raw_finish: str | None = None
        self._finished_choice = False
        self._usage: dict[str, Any] | None = None
        self._refusal: list[str] = []
        self._id_prefix = "call_"
        self._saw_tool_calls = False

    # -- SSE entry points ---------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._fast and not event:
            # The hot path, once started: an ordinary chunk with a one-field delta and nothing
            # else (no finish, usage, error). Anything unexpected raises inside the ``try``
            # (``[DONE]`` and non-JSON included) and is decoded by the general path instead.
            try:
                chunk = _loads(data)
                (choice,) = chunk["choices"]
                delta = choice["delta"]
                if (
                    choice["finish_reason"] is not None
                    or chunk.get("usage") is not None
                    or "error" in chunk
                    or "x_groq" in chunk
                    or len(delta) != 1
                ):
                    raise KeyError
                content = delta.get("content")
                if type(content) is str and not self._detail_items:
                    return [TextDelta(content)] if content else []
                fragments = delta.get("tool_calls")
                if type(fragments) is list and len(fragments) == 1:
                    events = self._calls.continuation(fragments[0])
                    if events is not None:
                        return events
            except (KeyError, TypeError, ValueError, AttributeError):  # JSONDecodeError too
                return self._general(event, data)
            out: list[StreamEvent] = []
            self._delta(delta, out)
            return out
        return self._general(event, data)

    def _general(self, event: str, data: str) -> list[StreamEvent]:
        if self._halted:
            if self._failed is not None:
                raise self._failed
            return []
        if event and event != "message":
            if event == "error":
                raise self._fail(self._error_event(data))
            return []  # unknown named events: skipped
        if data == "[DONE]":
            self._halted = self._done = True
            self._fast = False
            return self._finish([])
        try:
            chunk = _loads(data)
        except orjson.JSONDecodeError:
            if not data or data.isspace():  # an empty event (httpx-sse, after an id: line)
                return []
            raise self._fail(self._malformed(data)) from None
        if type(chunk) is not dict:
            raise self._fail(self._malformed(data))
        return self._chunk(chunk)

    def _chunk(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        out: list[StreamEvent] = []  # the general path
        choices = chunk.get("choices")
        if not self._started and (choices or chunk.get("id")):
            self._start(chunk, out)
        if choices:
            try:
                choice = choices[0] if len(choices) == 1 else _first_choice(choices)
                delta = choice.get("delta")
                raw = choice.get("finish_reason")
            except (AttributeError, TypeError, KeyError):
                delta = raw = None
            if delta and type(delta) is dict:
                self._delta(delta, out)
            if raw and type(raw) is str:
                self._raw_finish = raw
                self._finished_choice = True
                self._calls.end_all(out)
        usage = chunk.get("usage")
        if usage:
            if type(usage) is dict:
                self._usage = usage
        elif "x_groq" in chunk:
            self._groq_usage(chunk["x_groq"])
        if chunk.get("error"):
            failure = self._fail(stream_error(provider=self._provider, error=chunk))
            if not out:
                raise failure
        return out

    def close(self) -> list[StreamEvent]:
        if self._failed is not None:
            raise self._failed
        if self._done:
            return []
        self._halted = True
        self._fast = False
        if not self._finished_choice:
            raise self._fail(
                StreamTruncatedError(
                    "the stream ended before a finish_reason or [DONE]", provider=self._provider
                )
            )
        self._done = True
        return self._finish([])

    # -- pieces ---------------------------------------------------------------------------
    def _start(self, chunk: dict[str, Any], out: list[StreamEvent]) -> None:
        self._started = self._fast = True
        response_id = chunk.get("id")
        model = chunk.get("model")
        if isinstance(response_id, str) and response_id:
            self._id_prefix = f"call_{response_id[-12:]}_"
        else:
            response_id = None
        model = model if isinstance(model, str) and model else None
        out.append(StreamStart(response_id, model))

    def _delta(self, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        for key, value in delta.items():
            if value:
                if type(value) is str:
                    if key == "content":
                        self._end_reasoning(out)
                        out.append(TextDelta(value))
                        continue
                    if key == "reasoning_content" or (
                        key == "reasoning" and not delta.get("reasoning_content")
                    ):  # ``reasoning`` repeating ``reasoning_content``: not twice
                        out.append(ReasoningDelta(value))
                        continue
                handler = _DELTA_FIELDS.get(key)
                if handler is not None:
                    handler(self, value, delta, out)

    def _groq_usage(self, x_groq: Any) -> None:
        usage = x_groq.get("usage") if type(x_groq) is dict else None
        if usage and type(usage) is dict:
            self._usage = usage

    # -- delta fields (dispatch table below) -----------------------------------------------
    def _end_reasoning(self, out: list[StreamEvent]) -> None:
        """Emit the run's whole ``reasoning_details`` (kept for the round trip), if any."""
        if self._details:
            out.append(ReasoningDelta("", provider_data={DETAILS: self._details.take()}))

    def _content(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        if isinstance(value, list):  # typed parts (Mistral thinking, Databricks reasoning)
            _content_parts(value, out)

    def _reasoning_details(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        # OpenRouter repeats the text of ``reasoning`` in ``reasoning_details``: read it once.
        if isinstance(value, list):
            if not (delta.get("reasoning") or delta.get("reasoning_content")):
                _reasoning_details(value, out)
            self._details.add(value)

    def _refusal_delta(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        if isinstance(value, str):
            self._end_reasoning(out)
            self._refusal.append(value)
            out.append(TextDelta(value))

    def _annotations(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        out.extend(annotation_citations(value))  # url_citation (search models, OpenRouter)

    def _tool_calls(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        if isinstance(value, list):
            self._end_reasoning(out)
            self._saw_tool_calls = True
            self._calls.feed(value, out, id_prefix=self._id_prefix)

    def _function_call(self, value: Any, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        # The legacy functions API: one call, no id. Servers that send it *beside* tool_calls
        # (llama-cpp-python) describe the same call twice: tool_calls wins.
        if isinstance(value, dict) and not self._saw_tool_calls and "tool_calls" not in delta:
            self._calls.feed([{"index": 0, "function": value}], out, id_prefix=self._id_prefix)

    def _finish(self, out: list[StreamEvent]) -> list[StreamEvent]:
        self._end_reasoning(out)
        self._calls.end_all(out)
        reason = map_finish_reason(self._raw_finish, had_tool_calls=self._calls.count > 0)
        provider_data = None
        if self._refusal:
            reason = "content_filter"
            provider_data = {"refusal": "".join(self._refusal)}
        usage = convert_usage(self._usage) if self._usage is not None else None
        out.append(Finish(reason, self._raw_finish, usage, provider_data))
        return out

    def _fail(self, error: LLMBridgeError) -> LLMBridgeError:
        self._failed = error
        self._halted = True
        self._fast = False
        return error

    def _error_event(self, data: str) -> LLMBridgeError:
        try:
            parsed: Any = orjson.loads(data)
        except orjson.JSONDecodeError:
            parsed = data
        return stream_error(provider=self._provider, error=parsed)

    def _malformed(self, data: str) -> LLMBridgeError:
        return MalformedStreamError(
            f"a data line is not a JSON chunk: {data[:120]!r}", provider=self._provider
        )


_DeltaHandler = Callable[[ChatCompletionsDecoder, Any, dict[str, Any], list[StreamEvent]], None]
_DELTA_FIELDS: dict[str, _DeltaHandler] = {
    "content": ChatCompletionsDecoder._content,
    "reasoning_details": ChatCompletionsDecoder._reasoning_details,
    "refusal": ChatCompletionsDecoder._refusal_delta,
    "annotations": ChatCompletionsDecoder._annotations,
    "tool_calls": ChatCompletionsDecoder._tool_calls,
    "function_call": ChatCompletionsDecoder._function_call,
}


def _first_choice(choices: list[Any]) -> dict[str, Any]:
    """Choice 0 of a multi-choice (``n > 1``) chunk; other choices are not followed."""
    for choice in choices:
        if type(choice) is dict and not choice.get("index"):
            return choice
    return {}


def _content_parts(parts: list[Any], out: list[StreamEvent]) -> None:
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if text and isinstance(text, str):
                out.append(TextDelta(text))
        elif kind in ("thinking", "reasoning"):
            inner = part.get("thinking") or part.get("summary") or ()
            if isinstance(inner, str):
                out.append(ReasoningDelta(inner))
                continue
            for sub in inner if isinstance(inner, list) else ():
                text = sub.get("text") if isinstance(sub, dict) else None
                if text and isinstance(text, str):
                    out.append(ReasoningDelta(text))


def _reasoning_details(details: list[Any], out: list[StreamEvent]) -> None:
    for item in details:
        if not isinstance(item, dict):
            continue
        text = item.get("text") or item.get("summary")
        if text and isinstance(text, str):
            out.append(ReasoningDelta(text))

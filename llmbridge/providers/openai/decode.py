"""Chat Completions SSE stream → normalized events (sans-IO).

Follows https://platform.openai.com/docs/api-reference/chat/streaming and the compatible
servers' variants (see ``tool_calls.py`` for tool-call fragments). Rules:

* one ``orjson.loads`` per ``data:`` line; ``[DONE]`` ends the stream; SSE comments never reach
  us; ``event: error`` (Groq) and an ``error`` object in any chunk (OpenAI, OpenRouter) raise a
  typed ``APIError`` *after* the events of that chunk were returned (the next ``feed`` or
  ``close`` raises); non-JSON data raises ``MalformedStreamError``;
* only choice 0 is followed; text from ``delta.content`` (a string, or a list of typed parts:
  ``text`` / ``thinking`` (Mistral) / ``reasoning`` summaries (Databricks)); reasoning from
  ``reasoning_content`` (DeepSeek, vLLM) else ``reasoning`` (OpenRouter, Groq, Ollama) else
  ``reasoning_details[]`` text; ``refusal`` deltas are surfaced as text, the finish reason
  becomes ``content_filter`` and ``Finish.provider_data["refusal"]`` holds the refusal;
* ``finish_reason`` closes the open tool calls; ``Finish`` waits for ``[DONE]`` (or the end of
  the body) so the trailing usage chunk (``choices: []``) is merged in. Usage is the last
  snapshot seen (also on chunks with choices, or in Groq's ``x_groq``), never a sum;
* a body that ends with neither a finish_reason nor ``[DONE]`` raises ``StreamTruncatedError``
  from ``close()``; ``[DONE]`` without a finish_reason finishes as ``stop`` / ``tool_calls``.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from ...events import Finish, ReasoningDelta, StreamEvent, StreamStart, TextDelta
from ...stream.http_errors import api_error
from .finish_reasons import map_finish_reason
from .tool_calls import ToolCallTracker
from .usage import convert_usage

__all__ = ["ChatCompletionsDecoder"]

_DATA_EVENTS = frozenset({"", "message"})


class ChatCompletionsDecoder:
    """Feed SSE events with ``feed(event, data)``; call ``close()`` once at end of body."""

    def __init__(self, *, provider: str, use_index: bool = True) -> None:
        self._provider = provider
        self._calls = ToolCallTracker(use_index=use_index)
        self._started = False
        self._done = False
        self._failed: LLMBridgeError | None = None
        self._raw_finish: str | None = None
        self._finished_choice = False
        self._usage: dict[str, Any] | None = None
        self._refusal: list[str] = []
        self._id_prefix = "call_"

    # -- SSE entry points ---------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._failed is not None:
            raise self._failed
        if self._done:
            return []
        if event not in _DATA_EVENTS:
            if event == "error":
                raise self._fail(self._error_event(data))
            return []  # unknown named events: skipped
        if data == "[DONE]":
            self._done = True
            return self._finish([])
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise self._fail(self._malformed(data)) from None
        if not isinstance(chunk, dict):
            raise self._fail(self._malformed(data))
        out: list[StreamEvent] = []
        if not self._started:
            self._start(chunk, out)
        choices = chunk.get("choices")
        if choices and isinstance(choices, list):
            choice = choices[0]
            if isinstance(choice, dict) and choice.get("index", 0) in (0, None):
                self._choice(choice, out)
        usage = chunk.get("usage")
        if not usage:
            x_groq = chunk.get("x_groq")
            usage = x_groq.get("usage") if isinstance(x_groq, dict) else None
        if usage and isinstance(usage, dict):
            self._usage = usage
        error = chunk.get("error")
        if error:
            failure = self._fail(api_error(provider=self._provider, status=None, error=chunk))
            if not out:
                raise failure
        return out

    def close(self) -> list[StreamEvent]:
        if self._failed is not None:
            raise self._failed
        if self._done:
            return []
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
        self._started = True
        response_id = chunk.get("id")
        model = chunk.get("model")
        if isinstance(response_id, str) and response_id:
            self._id_prefix = f"call_{response_id[-12:]}_"
        else:
            response_id = None
        out.append(StreamStart(response_id, model if isinstance(model, str) else None))

    def _choice(self, choice: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = choice.get("delta")
        if isinstance(delta, dict) and delta:
            self._delta(delta, out)
        raw = choice.get("finish_reason")
        if isinstance(raw, str) and raw:
            self._raw_finish = raw
            self._finished_choice = True
            self._calls.end_all(out)

    def _delta(self, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning:
            if isinstance(reasoning, str):
                out.append(ReasoningDelta(reasoning))
        else:
            details = delta.get("reasoning_details")
            if details and isinstance(details, list):
                _reasoning_details(details, out)
        content = delta.get("content")
        if content:
            if isinstance(content, str):
                out.append(TextDelta(content))
            elif isinstance(content, list):
                _content_parts(content, out)
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            self._refusal.append(refusal)
            out.append(TextDelta(refusal))
        tool_calls = delta.get("tool_calls")
        if tool_calls and isinstance(tool_calls, list):
            self._calls.feed(tool_calls, out, id_prefix=self._id_prefix)
        function_call = delta.get("function_call")  # legacy functions API
        if function_call and isinstance(function_call, dict):
            self._calls.feed(
                [{"index": 0, "function": function_call}], out, id_prefix=self._id_prefix
            )

    def _finish(self, out: list[StreamEvent]) -> list[StreamEvent]:
        self._calls.end_all(out)
        reason = map_finish_reason(raw=self._raw_finish, had_tool_calls=self._calls.count > 0)
        provider_data = None
        if self._refusal:
            reason = "content_filter"
            provider_data = {"refusal": "".join(self._refusal)}
        usage = convert_usage(self._usage) if self._usage is not None else None
        out.append(Finish(reason, self._raw_finish, usage, provider_data))
        return out

    def _fail(self, error: LLMBridgeError) -> LLMBridgeError:
        self._failed = error
        return error

    def _error_event(self, data: str) -> LLMBridgeError:
        try:
            parsed: Any = orjson.loads(data)
        except orjson.JSONDecodeError:
            parsed = data
        return api_error(provider=self._provider, status=None, error=parsed)

    def _malformed(self, data: str) -> LLMBridgeError:
        return MalformedStreamError(
            f"a data line is not a JSON chunk: {data[:120]!r}", provider=self._provider
        )


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

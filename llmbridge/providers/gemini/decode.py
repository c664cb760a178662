"""Sans-IO decoder of ``streamGenerateContent?alt=sse`` (Gemini API and Vertex AI).

Follows https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse and
``google.genai.types`` (``Part``, ``FunctionCall.partialArgs``, ``FinishReason``). Every SSE
event is one whole ``GenerateContentResponse``; there is no terminal marker but the
``finishReason`` (or a ``promptFeedback.blockReason``). Rules:

* the first chunk gives ``StreamStart`` (response id, model version, dropped settings);
* a chunk holding one candidate with one plain text part and nothing else (nearly every chunk)
  is read on an inlined fast path; every other shape goes through the careful reader;
* text parts → ``TextDelta``; ``thought: true`` parts → ``ReasoningDelta``; only candidate 0;
* ``thoughtSignature``: on a thought part it is that ``ReasoningDelta``'s signature; on a
  function call it goes to ``ToolCallEnd.provider_data``; an empty text part holding only a
  signature waits for the next part (a function call takes it); a signature that belongs to a
  non-call part becomes ``ReasoningDelta("", signature, {"signature_placement": "next_part"})``
  just before that part (or at the end), which the encoder puts back where it came from;
* ``functionCall`` parts arrive whole: start, one chunk with the arguments as sent, end. Vertex
  may stream them (``willContinue`` + ``partialArgs``): the call opens on the named part and
  ends on the first part without ``willContinue`` (or when another call, content or the end
  comes). Ids are Gemini's, else (missing or repeated) generated from the response id by the
  ledger (``llmbridge.tool_calls``) and marked ``generated_id``;
* parts the provider made or ran itself (``executableCode``, ``codeExecutionResult``, server
  tool calls, generated media, part types newer than this code) are never tool-call events:
  each becomes a ``ProviderItem`` holding the part exactly as received (its
  ``thoughtSignature`` included), in stream order, so ``resp.message`` sends it back in place;
* typed views (``hosted.py``): a code execution result part is followed by a ``CodeOutput``, an
  image part by a ``GeneratedImage``; grounding supports become ``Citation`` events (once each);
* grounding / citation / URL-context metadata, ``finishMessage`` and a blocking
  ``promptFeedback`` are kept in ``Finish.provider_data``;
* ``usageMetadata`` is cumulative: the last one wins, and ``Finish`` is emitted by ``close()``
  so usage arriving after the ``finishReason`` chunk still counts;
* an ``error`` object raises the typed ``APIError``; undecodable data raises
  ``MalformedStreamError``; a body ending with no finish reason raises ``StreamTruncatedError``.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...errors import MalformedStreamError, StreamTruncatedError
from ...events import (
    Finish,
    FinishReason,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
)
from ...tool_calls import ToolCall, ToolCallLedger
from ..base import BaseDecoder
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .hosted import PartViews, grounding_citations
from .messages import NEXT_PART, PLACEMENT, SIGNATURE
from .partial_args import ArgumentsBuilder
from .usage import convert_usage

__all__ = ["GeminiDecoder"]

_NEXT_PART = {PLACEMENT: NEXT_PART}
"""``ReasoningDelta.provider_data`` of a signature that belongs to the part after it."""

_loads = orjson.loads

_METADATA = (
    ("groundingMetadata", "grounding_metadata"),
    ("citationMetadata", "citation_metadata"),
    ("urlContextMetadata", "url_context_metadata"),
    ("finishMessage", "finish_message"),
)


class GeminiDecoder(BaseDecoder):
    """``feed(event, data)`` per SSE event, ``close()`` once at the end of the body."""

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self._started = False
        self._response_id: str | None = None
        self._calls = ToolCallLedger()
        self._open: tuple[ToolCall, ArgumentsBuilder] | None = None
        self._pending: str | None = None
        self._finish: str | None = None
        self._blocked: str | None = None
        self._usage: dict[str, Any] | None = None
        self._extra: dict[str, Any] = {}
        self._cited: set[tuple[str, str | None]] = set()
        self._views = PartViews()

    # -- feeding -----------------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        try:
            chunk = _loads(data)
        except orjson.JSONDecodeError as exc:
            if not data or data.isspace():
                return []
            raise MalformedStreamError(
                f"Gemini sent a data line that is not JSON: {data[:120]!r}", provider=self.provider
            ) from exc
        try:  # the hot path: one candidate holding one plain text part and nothing else
            (candidate,) = chunk["candidates"]
            (part,) = candidate["content"]["parts"]
            text = part["text"]
            if (
                text.__class__ is str
                and len(part) == 1
                and len(candidate) == 1 + ("index" in candidate)
                and self._started
                and self._open is None
                and self._pending is None
                and "error" not in chunk
                and "promptFeedback" not in chunk
            ):
                usage = chunk.get("usageMetadata")
                if usage.__class__ is dict:
                    self._usage = usage
                return [TextDelta(text)] if text else []
        except (KeyError, TypeError, ValueError):
            pass  # any other shape: read carefully below
        return self._feed(chunk)

    def _feed(self, chunk: Any) -> list[StreamEvent]:
        if type(chunk) is not dict:
            raise MalformedStreamError(
                f"Gemini sent a {type(chunk).__name__} where a response object was expected",
                provider=self.provider,
            )
        out: list[StreamEvent] = []
        if not self._started:
            self._start(chunk, out)
        if "error" in chunk and chunk["error"] is not None:
            raise stream_error(provider=self.provider, error=chunk)
        usage = chunk.get("usageMetadata")
        if type(usage) is dict:
            self._usage = usage
        if "promptFeedback" in chunk:
            self._feedback(chunk["promptFeedback"])
        candidate = _first_candidate(chunk.get("candidates"))
        if candidate is None:
            return out
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is list:
            self._parts(parts, out)
        if len(candidate) > ("index" in candidate) + ("content" in candidate):  # finish, metadata
            self._candidate_end(candidate, out)
        return out

    def _parts(self, parts: list[Any], out: list[StreamEvent]) -> None:
        for part in parts:
            if type(part) is not dict:
                continue
            if len(part) == 1 and self._open is None and self._pending is None:  # hot path
                text = part.get("text")
                if type(text) is str:
                    if text:
                        out.append(TextDelta(text))
                    continue
            self._part(part, out)

    def _candidate_end(self, candidate: dict[str, Any], out: list[StreamEvent]) -> None:
        """The finish reason and the candidate's metadata (safety, grounding, ...)."""
        reason = candidate.get("finishReason")
        if type(reason) is str:
            self._finish = reason
        for key, name in _METADATA:
            if candidate.get(key) is not None:
                self._extra[name] = candidate[key]
        if "groundingMetadata" in candidate:
            out.extend(grounding_citations(candidate["groundingMetadata"], self._cited))

    def _start(self, chunk: dict[str, Any], out: list[StreamEvent]) -> None:
        self._started = True
        rid, model = chunk.get("responseId"), chunk.get("modelVersion")
        self._response_id = rid if isinstance(rid, str) and rid else None
        if self._response_id:
            self._calls.id_prefix = f"call_{self._response_id}_"
        model = model if isinstance(model, str) else None
        out.append(StreamStart(self._response_id, model))

    def _feedback(self, feedback: Any) -> None:
        if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
            self._blocked = feedback["blockReason"]
            self._extra["prompt_feedback"] = feedback

    def _part(self, part: dict[str, Any], out: list[StreamEvent]) -> None:
        signature = part.get(SIGNATURE)
        if not isinstance(signature, str) or not signature:
            signature = None
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._function_call(call, signature, out)
            return
        text = part.get("text")
        if isinstance(text, str) and part.get("thought") is True:
            self._close_call(out)
            self._flush_signature(out)
            if text or signature:
                out.append(ReasoningDelta(text, signature))
            return
        if isinstance(text, str) and not text:
            if signature is not None:
                self._flush_signature(out)
                self._pending = signature
            return
        self._close_call(out)
        self._flush_signature(out)
        if isinstance(text, str):
            if signature is not None:
                out.append(ReasoningDelta("", signature, dict(_NEXT_PART)))
            out.append(TextDelta(text))
        else:  # code execution, server tool calls, generated media: the provider's own part,
            out.append(ProviderItem(part))  # kept whole (its signature included), in order
            out.extend(self._views.events(part))  # its typed view (code output, image), if any

    # -- tool calls ----------------------------------------------------------------------
    def _function_call(
        self, call: dict[str, Any], signature: str | None, out: list[StreamEvent]
    ) -> None:
        name = call.get("name")
        more = call.get("willContinue") is True
        if self._open is not None and not name:  # the streamed call goes on
            current, builder = self._open
            builder.add(call.get("partialArgs"))
            data = current.provider_data
            if signature is not None and (data is None or SIGNATURE not in data):
                current.provider_data = {**(data or {}), **self._signed(signature)}
            if not more:
                self._close_call(out)
            return
        self._close_call(out)
        if not isinstance(name, str) or not name:
            return  # a stray continuation with no call open: nothing to attach it to
        if signature is not None and self._pending is not None:
            self._flush_signature(out)
        signature = signature or self._pending
        self._pending = None
        call_id = call.get("id")
        if not isinstance(call_id, str) or call_id in self._calls:
            call_id = None  # missing or repeated: generated (Gemini never sees it again)
        data = self._signed(signature) if signature is not None else None
        opened = self._calls.open(call_id, name, out, provider_data=data)
        if more or ("args" not in call and "partialArgs" in call):
            builder = ArgumentsBuilder()
            self._open = opened, builder
            builder.add(call.get("partialArgs"))
            if not more:
                self._close_call(out)
            return
        self._end(opened, call.get("args"), out)

    def _signed(self, signature: str) -> dict[str, Any]:
        return {"provider": self.provider, SIGNATURE: signature}

    def _close_call(self, out: list[StreamEvent]) -> None:
        if self._open is None:
            return
        opened, builder = self._open
        self._open = None
        if builder.errors:
            opened.provider_data = {
                **(opened.provider_data or {}),
                "partial_args_errors": builder.errors,
            }
        self._end(opened, builder.root if builder.seen else None, out)

    def _end(self, opened: ToolCall, args: Any, out: list[StreamEvent]) -> None:
        """Gemini sends arguments as a value: one chunk of its JSON text, then the end."""
        if args is not None:
            self._calls.add(opened, orjson.dumps(args).decode(), out)
        parsed = (args, None) if type(args) is dict else None
        self._calls.end(opened, out, parsed=parsed)

    def _flush_signature(self, out: list[StreamEvent]) -> None:
        if self._pending is not None:
            out.append(ReasoningDelta("", self._pending, dict(_NEXT_PART)))
            self._pending = None

    # -- end of body ---------------------------------------------------------------------
    def close(self) -> list[StreamEvent]:
        if self._finish is None and self._blocked is None:
            raise StreamTruncatedError(
                "the Gemini stream ended before a finishReason", provider=self.provider
            )
        out: list[StreamEvent] = []
        self._close_call(out)
        self._flush_signature(out)
        raw = self._finish if self._finish is not None else self._blocked
        reason: FinishReason = "content_filter"  # no finishReason: the prompt itself was blocked
        if self._finish is not None:
            reason = map_finish_reason(self._finish, had_tool_calls=self._calls.count > 0)
        usage = convert_usage(self._usage) if self._usage is not None else None
        out.append(Finish(reason, raw, usage, dict(self._extra) or None))
        return out


def _first_candidate(candidates: Any) -> dict[str, Any] | None:
    """Candidate 0 (the only one read), or None when the chunk has none."""
    if type(candidates) is not list or not candidates:
        return None
    candidate = candidates[0]
    if len(candidates) > 1 or type(candidate) is not dict:
        candidate = next(
            (c for c in candidates if type(c) is dict and c.get("index", 0) == 0), None
        )
    return candidate if type(candidate) is dict else None

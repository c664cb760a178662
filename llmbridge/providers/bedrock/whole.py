"""A whole ``Converse`` answer (``stream=False``) → normalized events, through the stream
decoder (``providers.whole.ReplayDecoder``).

Rules: the body (``output.message.content`` blocks, ``stopReason``, ``usage``, ``metrics``,
``trace``...) is restated as the frames of ``ConverseStream``: ``messageStart``, per block its
``contentBlockStart`` / ``contentBlockDelta`` / ``contentBlockStop`` (``text``; ``toolUse``
with its ``input`` as one JSON fragment; ``reasoningContent.reasoningText`` as text then
signature, ``redactedContent``; ``citationsContent`` as its text then one ``citation`` delta
each; ``toolResult`` and ``image`` blocks Bedrock made), then ``messageStop`` (the stop reason,
``additionalModelResponseFields``) and ``metadata`` (usage and the rest). ``decode.BedrockDecoder``
reads them as it reads a stream: the same events, finish reason, usage and provider data.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...frames import EventMessage
from ..whole import ReplayDecoder

__all__ = ["WHOLE_ACTION", "ConverseWholeDecoder"]

WHOLE_ACTION = "/converse"
"""The action of a whole call (the stream's is ``/converse-stream``)."""

_METADATA = ("usage", "metrics", "trace", "performanceConfig", "serviceTier")


def _frame(event: str, payload: dict[str, Any]) -> EventMessage:
    return EventMessage("event", orjson.dumps(payload), event_type=event)


def _block(index: int, block: dict[str, Any]) -> list[EventMessage]:
    def delta(value: dict[str, Any]) -> EventMessage:
        return _frame("contentBlockDelta", {"contentBlockIndex": index, "delta": value})

    def start(value: dict[str, Any]) -> EventMessage:
        return _frame("contentBlockStart", {"contentBlockIndex": index, "start": value})

    out: list[EventMessage] = []
    if isinstance(block.get("text"), str):
        out.append(delta({"text": block["text"]}))
    elif isinstance(block.get("toolUse"), dict):
        use = block["toolUse"]
        out.append(start({"toolUse": {k: v for k, v in use.items() if k != "input"}}))
        given = use.get("input")
        out.append(delta({"toolUse": {"input": orjson.dumps(given).decode() if given else ""}}))
    elif isinstance(block.get("reasoningContent"), dict):
        reasoning = block["reasoningContent"]
        text = reasoning.get("reasoningText")
        if isinstance(text, dict):
            if text.get("text"):
                out.append(delta({"reasoningContent": {"text": text["text"]}}))
            if text.get("signature"):
                out.append(delta({"reasoningContent": {"signature": text["signature"]}}))
        if reasoning.get("redactedContent"):
            out.append(
                delta({"reasoningContent": {"redactedContent": reasoning["redactedContent"]}})
            )
    elif isinstance(block.get("citationsContent"), dict):
        cited = block["citationsContent"]
        for part in cited.get("content") or ():
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(delta({"text": part["text"]}))
        for citation in cited.get("citations") or ():
            if isinstance(citation, dict):
                out.append(delta({"citation": citation}))
    elif isinstance(block.get("toolResult"), dict):
        result = block["toolResult"]
        out.append(start({"toolResult": {k: v for k, v in result.items() if k != "content"}}))
        out.append(delta({"toolResult": list(result.get("content") or ())}))
    elif isinstance(block.get("image"), dict):
        out.append(start({"image": block["image"]}))
    out.append(_frame("contentBlockStop", {"contentBlockIndex": index}))
    return out


class ConverseWholeDecoder(ReplayDecoder):
    """A whole Converse answer, decoded by the stream decoder (module rules)."""

    def replay(self, body: dict[str, Any]) -> list[Any]:
        output = body.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        message = message if isinstance(message, dict) else {}
        frames = [_frame("messageStart", {"role": message.get("role") or "assistant"})]
        content = message.get("content")
        for index, block in enumerate(content if isinstance(content, list) else ()):
            if isinstance(block, dict):
                frames.extend(_block(index, block))
        stop: dict[str, Any] = {"stopReason": body.get("stopReason")}
        if body.get("additionalModelResponseFields") is not None:
            stop["additionalModelResponseFields"] = body["additionalModelResponseFields"]
        frames.append(_frame("messageStop", stop))
        metadata = {k: body[k] for k in _METADATA if body.get(k) is not None}
        if metadata:
            frames.append(_frame("metadata", metadata))
        return frames

"""A whole ``generateContent`` answer (``stream=False``; Gemini API and Vertex AI) →
normalized events, through the stream decoder (``providers.whole.ReplayDecoder``).

Rules: a whole ``GenerateContentResponse`` is what each event of ``streamGenerateContent``
is, so the body is one event for ``decode.GeminiDecoder``: text, thoughts and their signatures,
function calls (whole), provider-made parts, grounding citations, the finish reason and usage
come out as the stream gives them. Enum numbers some servers and SDKs write (``"finishReason":
1``, a ``blockReason`` number) are read as their names first (the proto's numbering: Gemini's
and Vertex's differ past ``OTHER``). An ``error`` object raises the stream decoder's typed error.
"""

from __future__ import annotations

from typing import Any

from ..whole import ReplayDecoder, sse

__all__ = ["WHOLE_METHOD", "GeminiWholeDecoder", "VertexWholeDecoder", "named_enums"]

WHOLE_METHOD = ":generateContent"
"""The method of a whole call (the stream's is ``:streamGenerateContent?alt=sse``)."""

_COMMON = ("FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER")
_GEMINI_FINISH = (
    *_COMMON[:5],
    "OTHER",
    "LANGUAGE",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
)
"""``google.ai.generativelanguage.v1beta.Candidate.FinishReason`` by number (``LANGUAGE`` is 6,
``OTHER`` 5)."""
_VERTEX_FINISH = (
    *_COMMON,
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "MODEL_ARMOR",
    "IMAGE_SAFETY",
)
"""``google.cloud.aiplatform.v1.Candidate.FinishReason`` by number."""
_BLOCK = ("BLOCK_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT")


def _name(value: Any, names: tuple[str, ...]) -> Any:
    if type(value) is int and 0 <= value < len(names):
        return names[value]
    return value


def named_enums(body: dict[str, Any], *, vertex: bool) -> dict[str, Any]:
    """``body`` with enum numbers of the finish and block reasons read as names (module rules)."""
    names = _VERTEX_FINISH if vertex else _GEMINI_FINISH
    candidates = body.get("candidates")
    if isinstance(candidates, list) and any(
        isinstance(c, dict) and type(c.get("finishReason")) is int for c in candidates
    ):
        body = {
            **body,
            "candidates": [
                {**c, "finishReason": _name(c.get("finishReason"), names)}
                if isinstance(c, dict) and "finishReason" in c
                else c
                for c in candidates
            ],
        }
    feedback = body.get("promptFeedback")
    if isinstance(feedback, dict) and type(feedback.get("blockReason")) is int:
        feedback = {**feedback, "blockReason": _name(feedback["blockReason"], _BLOCK)}
        body = {**body, "promptFeedback": feedback}
    return body


class GeminiWholeDecoder(ReplayDecoder):
    """A whole ``generateContent`` answer, decoded by the stream decoder (module rules)."""

    vertex = False

    def replay(self, body: dict[str, Any]) -> list[Any]:
        return [sse("", named_enums(body, vertex=self.vertex))]


class VertexWholeDecoder(GeminiWholeDecoder):
    """The same for Vertex AI (its enum numbering)."""

    vertex = True

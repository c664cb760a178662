"""Reading SSE bodies in tests and plug-ins, through httpx-sse exactly as the client does.

``iter_sse(body_or_chunks)`` yields ``(event, data)`` pairs (``event == ""`` when unnamed);
see ``llmbridge.stream.bounded`` for the rules.
"""

from __future__ import annotations

from ..stream.bounded import iter_sse

__all__ = ["iter_sse"]

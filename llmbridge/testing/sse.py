"""Reading SSE bodies in tests and plug-ins, through httpx-sse exactly as the client does.

``iter_sse(body_or_chunks)`` yields ``(event, data)`` pairs (``event == ""`` when unnamed);
see ``llmbridge.stream.bounded`` for the rules. ``iter_eventstream(body_or_chunks)`` does the
same for an AWS event stream, through botocore (``llmbridge.stream.eventstream``).
"""

from __future__ import annotations

from ..stream.bounded import iter_sse
from ..stream.eventstream import iter_eventstream

__all__ = ["iter_eventstream", "iter_sse"]

"""Reading SSE bodies in tests and plug-ins, through httpx-sse exactly as the client does.

``iter_sse(body_or_chunks)`` yields ``(event, data)`` pairs (``event == ""`` when unnamed);
see ``llmbridge.stream.bounded`` for the rules. ``iter_eventstream(body_or_chunks)`` yields the
``llmbridge.frames.EventMessage``s of an AWS event stream, framed as the client frames it
(``llmbridge.stream.aws_eventstream``).
"""

from __future__ import annotations

from ..stream.aws_eventstream import iter_eventstream as iter_eventstream
from ..stream.bounded import iter_sse as iter_sse

__all__: list[str] = []

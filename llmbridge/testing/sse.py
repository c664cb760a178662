"""The SSE parser the client uses, for feeding decoders without IO in tests and plug-ins.

``feed(bytes)`` returns completed ``(event, data)`` pairs (``event == ""`` when unnamed);
``close()`` flushes at the end of the body. See ``llmbridge.stream.sse`` for the rules.
"""

from __future__ import annotations

from ..stream.sse import SSEParser

__all__ = ["SSEParser"]

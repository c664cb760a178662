"""IO lives here and only here: sending requests, retrying, reading SSE (httpx + httpx-sse)."""

from .retry import RetryPolicy
from .transport import stream_events

__all__ = ["RetryPolicy", "stream_events"]

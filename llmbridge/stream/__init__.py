"""IO lives here and only here: sending requests, retrying, framing SSE over httpx."""

from .retry import RetryPolicy
from .transport import stream_events

__all__ = ["RetryPolicy", "stream_events"]

"""IO lives here and only here: the HTTP clients (``clients``), sending and retrying
(``transport``), reading SSE through httpx-sse (``sse``), and HTTP errors (``http_errors``)."""

from .retry import RetryPolicy
from .transport import stream_events

__all__ = ["RetryPolicy", "stream_events"]

"""IO lives here and only here: the HTTP clients (``clients``), the one attempt loop that sends
every call (``transport.run_attempts``: streams, retries, deadlines) with one attempt's send
(``opening``), the call's configuration (``call``), the one place a ``StreamStart`` is stamped
(``start_stamp``), resuming a stream the server keeps (``resume``, a strategy of that loop),
plain JSON requests (``fetch``, a reader of it), what they share to send, translate errors and
scrub secrets (``sending``), reading SSE through httpx-sse (``bounded``), AWS event streams
framed by us with botocore's header parser (``aws_eventstream``) and NDJSON by lines
(``ndjson``), both on one frame reader (``framed``) handing decoders typed frames
(``llmbridge.frames``), all three on one byte reader (``pieces``: decompressed a piece at a
time, the loop given turns); a provider's ``framing`` picks the reader.
No provider is named here: a non-2xx response goes to ``provider.map_error``, which maps it
with the provider's own vocabulary."""

from .retry import RetryPolicy
from .transport import stream_events

__all__ = ["RetryPolicy", "stream_events"]

"""IO lives here and only here. One attempt loop sends every call (``transport.run_attempts``:
streams, retries, deadlines; one attempt's send in ``opening``, a failed one's decision in
``failed_attempt``), configured once per call (``call``); ``StreamStart`` is stamped in one place
(``start_stamp``); resuming is a strategy of the loop (``resume``), a plain JSON request a
reader of it (``fetch``). The HTTP clients are ``clients``; ``sending`` sends, translates
errors and scrubs secrets.

Bodies: SSE through httpx-sse (``bounded``), AWS event streams framed here with botocore's
header parser (``aws_eventstream``) and NDJSON by lines (``ndjson``), both on one frame reader
(``framed``) handing decoders typed frames (``llmbridge.frames``), all three on one byte reader
(``pieces``: decompressed a piece at a time, the loop given turns). A provider's framing picks
the reader; no provider is named here: a non-2xx response goes to ``provider.map_error``."""

from .retry import RetryPolicy
from .transport import stream_events

__all__ = ["RetryPolicy", "stream_events"]

"""Streams to the browser: llmbridge events out as the Vercel AI SDK's UI message stream
(``llmbridge.ui.ai_sdk``) or AG-UI events (``llmbridge.ui.ag_ui``), and what those front ends
send back read in as ``ChatMessage``s. Framework-neutral (async iterators of bytes plus the
headers); ``llmbridge.ui.starlette`` adds Starlette/FastAPI responses (extra ``ui``).

Rules: importing this package loads neither protocol nor Starlette; the protocol-neutral walk
over events lives once, in ``llmbridge.ui.walk``. See docs/ui-streams.md.
"""

from .app_events import Data, State

__all__ = ["Data", "State"]

"""Gemini's Interactions API: the ``gemini-interactions`` and ``vertex-interactions`` providers.

Files as in every provider (``provider.py``, ``request.py``, ``messages.py``, ``decode.py``,
``errors.py``, ``finish_reasons.py``, ``usage.py``), plus ``hosted.py`` (typed views of
built-in tool steps) and ``interaction.py`` (a whole ``Interaction`` object → events). HTTP
error bodies, hosted-tool encoding and the model list are Gemini's
(``llmbridge.providers.gemini``). See docs/interactions.md.
"""

from .decode import InteractionsDecoder
from .interaction import WholeInteractionDecoder, interaction_events
from .provider import (
    API_REVISION,
    GeminiInteractionsProvider,
    VertexInteractionsProvider,
    create,
    create_vertex,
)

__all__ = [
    "API_REVISION",
    "GeminiInteractionsProvider",
    "InteractionsDecoder",
    "VertexInteractionsProvider",
    "WholeInteractionDecoder",
    "create",
    "create_vertex",
    "interaction_events",
]

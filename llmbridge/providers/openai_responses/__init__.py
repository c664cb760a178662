"""OpenAI Responses API provider (``openai-responses:<model>``).

Files as in every provider (see ``llmbridge.providers``), plus ``shapes.py`` (small readers of
output items) and ``tool_calls.py`` (how output items address a function call).
"""

from .decode import ResponsesDecoder
from .provider import DEFAULT_BASE_URL, OpenAIResponsesProvider, create

__all__ = ["DEFAULT_BASE_URL", "OpenAIResponsesProvider", "ResponsesDecoder", "create"]

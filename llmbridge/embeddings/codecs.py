"""Which codec module serves a family, and one piece of a call encoded / decoded through it.

Rules: pure (options → ``HttpRequest``, JSON → ``EmbeddingResponse``); the options are
checked against the family first (``options.check``), whose warnings land on the response.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..errors import ConfigurationError
from ..providers.base import HttpRequest
from . import bedrock, cohere, gemini, ollama, openai_compatible
from .options import SUPPORT, EmbedOptions, check
from .types import EmbeddingResponse
from .wire import Input, Target

__all__ = ["decode", "encode", "max_inputs", "prepare"]

_CODECS: dict[str, ModuleType] = {
    "openai": openai_compatible,
    "openai-compatible": openai_compatible,
    "mistral": openai_compatible,
    "voyage": openai_compatible,
    "jina": openai_compatible,
    "cohere": cohere,
    "gemini": gemini,
    "vertex": gemini,
    "ollama-native": ollama,
    "bedrock-titan": bedrock,
    "bedrock-cohere": bedrock,
    "bedrock-nova": bedrock,
}


def prepare(target: Target, options: EmbedOptions) -> list[str]:
    """Check ``options`` for ``target``'s family; the warnings of what is not sent."""
    if target.family not in SUPPORT:
        raise ConfigurationError(
            f"{target.provider}: this model is not an embedding model ({target.family})",
            provider=target.provider,
        )
    return check(target.family, options, provider=target.provider)


_BASE64_FAMILIES = frozenset({"openai", "openai-compatible", "mistral", "voyage"})
_ASSUMED_DIMENSIONS = 4096
"""The width assumed when ``dimensions`` is not given (the widest common models')."""


def max_inputs(target: Target, options: EmbedOptions) -> int:
    """Inputs per request: the family's limit, and few enough that the answer stays under
    ``fetch_json``'s ``MAX_JSON_BODY`` (a vector is ~5.4 bytes a dimension as base64 float32,
    up to ~24 as JSON numbers)."""
    from ..stream.fetch import MAX_JSON_BODY

    wide = options.dimensions or _ASSUMED_DIMENSIONS
    base64 = target.family in _BASE64_FAMILIES and options.output_type == "float"
    per_vector = wide * (6 if base64 else 24) + 64
    return max(1, min(SUPPORT[target.family].max_inputs, MAX_JSON_BODY // per_vector))


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The request of one piece of ``inputs``."""
    return _CODECS[target.family].encode(target, model, inputs, options)  # type: ignore[no-any-return]


def decode(
    data: Any, *, target: Target, model: str, options: EmbedOptions, count: int
) -> EmbeddingResponse:
    """The answer of one piece (``count`` inputs): a ``MalformedStreamError`` when the count
    of vectors differs."""
    from ..errors import MalformedStreamError

    response: EmbeddingResponse = _CODECS[target.family].decode(
        data, target=target, model=model, options=options
    )
    if len(response) != count:
        raise MalformedStreamError(
            f"{target.provider}: {len(response)} embeddings came for {count} inputs",
            provider=target.provider,
        )
    return response

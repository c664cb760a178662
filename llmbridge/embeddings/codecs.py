"""Which codec module serves a family, and one piece of a call encoded / decoded through it.

Rules: pure (options → ``HttpRequest``, an ``Answer`` → ``EmbeddingResponse``); the options
are checked against the family first (``options.check``), whose warnings land on the response.
A family's ``decode_answer`` reads the answer's bytes its own way (the OpenAI shape: base64
vectors scanned out of them); the others parse it. The head fills what the body lacks: the
request id (``x-request-id``, ``x-amzn-requestid``...) and Bedrock's token count
(``x-amzn-bedrock-input-token-count``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType

from ..embedding_types import EmbeddingResponse
from ..errors import ConfigurationError
from ..providers.base import HttpRequest
from ..response_data import Usage
from ..stream.answer import Answer
from . import bedrock, cohere, gemini, ollama, openai_compatible, tei
from .options import SUPPORT, EmbedOptions, check
from .vectors import Rows
from .wire import Input, Target, usage_of

__all__ = ["BEDROCK_TOKENS", "decode", "encode", "max_inputs", "prepare", "usage_of_head"]

BEDROCK_TOKENS = "x-amzn-bedrock-input-token-count"
"""The header of Bedrock's InvokeModel answers with the input tokens."""


def usage_of_head(headers: Mapping[str, str]) -> Usage | None:
    """The input tokens a head reports (Bedrock's ``BEDROCK_TOKENS``), else ``None``."""
    value = headers.get(BEDROCK_TOKENS)
    return usage_of(int(value)) if value is not None and value.isdigit() else None


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
    "tei": tei,
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
    answer: Answer,
    *,
    target: Target,
    model: str,
    options: EmbedOptions,
    count: int,
    rows: Rows | None = None,
    start: int = 0,
) -> EmbeddingResponse:
    """The answer of one piece (``count`` inputs; its vectors into ``rows`` from ``start``
    where the family reads raw float32): a ``MalformedStreamError`` when the count of vectors
    differs."""
    from ..errors import MalformedStreamError

    codec = _CODECS[target.family]
    response: EmbeddingResponse
    if hasattr(codec, "decode_answer"):
        response = codec.decode_answer(
            answer, target=target, model=model, options=options, rows=rows, start=start
        )
    else:
        response = codec.decode(answer.json(), target=target, model=model, options=options)
    if response.request_id is None:
        response.request_id = answer.request_id
    if response.usage is None:
        response.usage = usage_of_head(answer.headers)
    if len(response) != count:
        raise MalformedStreamError(
            f"{target.provider}: {len(response)} embeddings came for {count} inputs",
            provider=target.provider,
        )
    return response

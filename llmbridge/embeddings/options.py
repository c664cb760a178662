"""The options of an embedding call, checked against what the provider family offers.

Rules:

* ``EmbedOptions`` holds the four portable options: ``dimensions``, ``input_type``
  (query / document / classification / clustering), ``output_type`` (float / int8 / uint8 /
  binary / ubinary) and ``truncate`` (True: the provider cuts the end; False: an over-long
  input is an error; None: the provider's default).
* ``SUPPORT`` says, per provider family, which of them it has. ``check`` turns a value the
  family lacks into a ``UsageError`` naming the families that have it (``output_type``,
  ``dimensions``, ``truncate``), except an ``input_type`` the family has no notion of: that
  is a warning (returned, to land in ``EmbeddingResponse.warnings``) and is not sent.
* A bad value (an unknown input type, ``dimensions=0``) is a ``UsageError`` at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..embedding_types import INPUT_TYPES, OUTPUT_TYPES, InputType, OutputType
from ..errors import UsageError

__all__ = ["SUPPORT", "EmbedOptions", "Support", "check"]


@dataclass(frozen=True, slots=True)
class EmbedOptions:
    """The portable options of one embedding call."""

    dimensions: int | None = None
    input_type: InputType | None = None
    output_type: OutputType = "float"
    truncate: bool | None = None

    def __post_init__(self) -> None:
        if self.dimensions is not None and (
            isinstance(self.dimensions, bool)
            or not isinstance(self.dimensions, int)
            or self.dimensions < 1
        ):
            raise UsageError(f"dimensions is a positive int (got {self.dimensions!r})")
        if self.input_type is not None and self.input_type not in INPUT_TYPES:
            raise UsageError(
                f"input_type is one of {', '.join(INPUT_TYPES)} or None (got {self.input_type!r})"
            )
        if self.output_type not in OUTPUT_TYPES:
            raise UsageError(
                f"output_type is one of {', '.join(OUTPUT_TYPES)} (got {self.output_type!r})"
            )
        if self.truncate is not None and not isinstance(self.truncate, bool):
            raise UsageError(f"truncate is True, False or None (got {self.truncate!r})")


@dataclass(frozen=True, slots=True)
class Support:
    """What one provider family's embedding endpoint takes."""

    output_types: frozenset[str] = frozenset({"float"})
    dimensions: bool = False
    input_types: frozenset[str] = frozenset()
    truncate: frozenset[bool] = frozenset()
    """The ``truncate`` values it can honour (``None`` always can)."""
    max_inputs: int = 2048
    """Inputs per request; a longer list is split."""


_ALL_TYPES = frozenset(OUTPUT_TYPES)
_ALL_INPUTS = frozenset(INPUT_TYPES)
_BOTH = frozenset({True, False})

SUPPORT: dict[str, Support] = {
    "openai": Support(dimensions=True),
    "openai-compatible": Support(dimensions=True),
    "mistral": Support(output_types=_ALL_TYPES, dimensions=True, max_inputs=512),
    "voyage": Support(
        output_types=_ALL_TYPES,
        dimensions=True,
        input_types=frozenset({"query", "document"}),
        truncate=_BOTH,
        max_inputs=1000,
    ),
    "jina": Support(
        output_types=frozenset({"float", "binary", "ubinary"}),
        dimensions=True,
        input_types=_ALL_INPUTS,
        truncate=_BOTH,
        max_inputs=2048,
    ),
    "cohere": Support(
        output_types=_ALL_TYPES,
        dimensions=True,
        input_types=_ALL_INPUTS,
        truncate=_BOTH,
        max_inputs=96,
    ),
    "gemini": Support(dimensions=True, input_types=_ALL_INPUTS, max_inputs=100),
    "vertex": Support(dimensions=True, input_types=_ALL_INPUTS, truncate=_BOTH, max_inputs=250),
    "ollama-native": Support(dimensions=True, truncate=_BOTH, max_inputs=2048),
    "bedrock-titan": Support(
        output_types=frozenset({"float", "binary", "ubinary"}), dimensions=True, max_inputs=1
    ),
    "bedrock-cohere": Support(
        output_types=_ALL_TYPES,
        dimensions=True,
        input_types=_ALL_INPUTS,
        truncate=_BOTH,
        max_inputs=96,
    ),
    "bedrock-nova": Support(dimensions=True, input_types=_ALL_INPUTS, truncate=_BOTH, max_inputs=1),
    "tei": Support(dimensions=True, truncate=_BOTH, max_inputs=32),
}
"""Per provider family: Cohere's and Voyage's API references, OpenAI's ``/embeddings``,
Gemini's ``embedContent`` (Vertex ``:predict`` adds ``autoTruncate``), Ollama's ``/api/embed``,
the Bedrock model bodies (Titan v2, Cohere Embed, Nova multimodal), TEI's ``/embed``."""


def _having(what: str, test: object) -> str:
    names = [name for name, s in SUPPORT.items() if test(s)]  # type: ignore[operator]
    return f"{what} is offered by: {', '.join(names)}" if names else f"no provider offers {what}"


def check(family: str, options: EmbedOptions, *, provider: str) -> list[str]:
    """Raise a ``UsageError`` for an option ``family`` lacks; return the warnings (an
    ``input_type`` it has no notion of, which is then not sent)."""
    support = SUPPORT[family]
    if options.output_type not in support.output_types:
        raise UsageError(
            f"{provider}: output_type={options.output_type!r} is not offered "
            f"({family} sends {', '.join(sorted(support.output_types))}); "
            + _having(
                f"output_type={options.output_type!r}",
                lambda s: options.output_type in s.output_types,
            )
        )
    if options.dimensions is not None and not support.dimensions:
        raise UsageError(
            f"{provider}: dimensions= is not offered by {family}; "
            + _having("dimensions=", lambda s: s.dimensions)
        )
    if options.truncate is not None and options.truncate not in support.truncate:
        raise UsageError(
            f"{provider}: truncate={options.truncate!r} is not offered by {family} "
            "(pass truncate=None for its default); "
            + _having(f"truncate={options.truncate!r}", lambda s: options.truncate in s.truncate)
        )
    if options.input_type is not None and options.input_type not in support.input_types:
        return [
            f"{provider}: input_type={options.input_type!r} is not sent ({family} has no "
            "notion of it)"
        ]
    return []

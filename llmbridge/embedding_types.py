"""What an embedding or rerank call returns: ``EmbeddingResponse``, ``RerankResponse``,
``RerankResult``, and the option names they share.

Rules:

* ``vectors`` holds one vector per input, in input order: ``list[float]`` for ``float``,
  ``list[int]`` for the integer types (``binary`` / ``ubinary``: packed bits, 8 dimensions a
  byte, as Cohere and Voyage send them). A failed piece of a split call leaves ``None`` in
  its inputs' places (the ``partial`` of the error).
* A float answer that came as raw float32 bytes (base64 on the wire) keeps those bytes: the
  Python lists are made on first use of ``vectors`` and ``numpy()`` is a zero-copy view of the
  bytes, so a numpy user never pays for a Python float per dimension.
* ``usage`` is ``None`` when the provider reports no token count; ``cost`` asks
  ``llmbridge.cost`` (the ``prices`` extra) and is ``None`` when unknown.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, TypeAlias, get_args

from .cost import cost_of
from .response_data import Usage

__all__ = [
    "INPUT_TYPES",
    "OUTPUT_TYPES",
    "EmbeddingResponse",
    "InputType",
    "OutputType",
    "RerankResponse",
    "RerankResult",
    "Vector",
]

InputType: TypeAlias = Literal["query", "document", "classification", "clustering"]
OutputType: TypeAlias = Literal["float", "int8", "uint8", "binary", "ubinary"]
INPUT_TYPES: tuple[str, ...] = get_args(InputType)
OUTPUT_TYPES: tuple[str, ...] = get_args(OutputType)
Vector: TypeAlias = "list[float] | list[int]"

_NUMPY_DTYPES = {
    "float": "float32",
    "int8": "int8",
    "uint8": "uint8",
    "binary": "int8",
    "ubinary": "uint8",
}


class EmbeddingResponse:
    """One vector per input (input order), the model, usage, request id and warnings."""

    __slots__ = (
        "_raw",
        "_vectors",
        "dimensions",
        "model",
        "output_type",
        "provider",
        "request_id",
        "usage",
        "warnings",
    )

    def __init__(
        self,
        vectors: list[Any] | None = None,
        *,
        model: str = "",
        usage: Usage | None = None,
        request_id: str | None = None,
        warnings: list[str] | None = None,
        provider: str | None = None,
        output_type: OutputType = "float",
        raw: bytes | bytearray | memoryview | None = None,
        dimensions: int | None = None,
    ) -> None:
        """``raw``: the float32 (little-endian) bytes of every vector (or a view of them: a
        piece's rows in its call's buffer), ``dimensions`` wide,
        instead of ``vectors`` (which are then made from them on first use)."""
        if (vectors is None) == (raw is None):
            raise TypeError("EmbeddingResponse: give exactly one of vectors= or raw=")
        if raw is not None and not dimensions:
            raise TypeError("EmbeddingResponse: raw= needs dimensions=")
        self._vectors = vectors
        self._raw = raw
        self.dimensions = dimensions if dimensions else _width(vectors or [])
        """The length of each vector (0 when there are none)."""
        self.model = model
        self.usage = usage
        """Input tokens where the provider reports them; ``None`` when it sends none."""
        self.request_id = request_id
        self.warnings = list(warnings or [])
        """Options the provider has no notion of (named, and not sent)."""
        self.provider = provider
        self.output_type: OutputType = output_type

    @property
    def vectors(self) -> list[Any]:
        """One vector per input, in input order (``None`` for an input whose piece failed)."""
        if self._vectors is None:
            self._vectors = _unpack_float32(self._raw or b"", self.dimensions)
        return self._vectors

    def __len__(self) -> int:
        if self._vectors is None:
            return len(self._raw or b"") // (4 * self.dimensions)
        return len(self._vectors)

    @property
    def cost(self) -> Decimal | None:
        """The USD cost of ``usage`` (the ``prices`` extra), ``None`` when unknown."""
        return cost_of(self.usage, model=self.model, provider=self.provider)

    def numpy(self) -> Any:
        """The vectors as a 2-D numpy array (numpy needed; never a dependency): a zero-copy,
        read-only view when the answer came as float32 bytes."""
        try:
            np = importlib.import_module("numpy")
        except ImportError as exc:
            raise ImportError("EmbeddingResponse.numpy() needs numpy (pip install numpy)") from exc
        dtype = _NUMPY_DTYPES[self.output_type]
        if self._raw is not None:
            view = np.frombuffer(self._raw, dtype="<f4").reshape(-1, self.dimensions)
            view.flags.writeable = False
            return view
        if any(v is None for v in self.vectors):
            raise ValueError("numpy(): some inputs have no vector (their piece failed)")
        return np.asarray(self.vectors, dtype=dtype).reshape(len(self.vectors), self.dimensions)

    def __repr__(self) -> str:
        return (
            f"EmbeddingResponse(model={self.model!r}, vectors={len(self)}x{self.dimensions}, "
            f"output_type={self.output_type!r}, usage={self.usage!r})"
        )


def _width(vectors: list[Any]) -> int:
    return next((len(v) for v in vectors if v is not None), 0)


def _unpack_float32(raw: bytes | bytearray | memoryview, dimensions: int) -> list[Any]:
    """``raw`` (little-endian float32) as one ``list[float]`` per vector, no loop per float."""
    view = memoryview(raw)
    if sys.byteorder == "big":  # pragma: no cover - no big-endian CI machine
        import array

        swapped = array.array("f", raw)
        swapped.byteswap()
        view = memoryview(swapped.tobytes())
    floats = view.cast("f")
    return [floats[i : i + dimensions].tolist() for i in range(0, len(floats), dimensions)]


@dataclass(frozen=True, slots=True)
class RerankResult:
    """One document's place: its ``index`` in the documents given, its relevance ``score``."""

    index: int
    score: float
    document: str | None = None
    """The document's text (as given, or as the provider returned it)."""


@dataclass(slots=True)
class RerankResponse:
    """``results`` highest score first, the model, usage, request id."""

    results: list[RerankResult]
    model: str = ""
    usage: Usage | None = None
    request_id: str | None = None
    provider: str | None = None
    warnings: list[str] = field(default_factory=list)

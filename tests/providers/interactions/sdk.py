"""The google-genai SDK's Interactions types as a strict check of our request bodies.

The SDK's models accept unknown variants (kept as ``UNKNOWN``) and extra fields, so validating
is not enough: ``strays(body)`` lists every place the SDK did not recognise (an unknown variant,
a field its model lacks), and the body must also dump back to itself.
"""

from __future__ import annotations

import warnings
from typing import Any

import pydantic

interactions = __import__(
    "google.genai._gaos.types.interactions", fromlist=["CreateModelInteraction"]
)


def _strays(value: Any, where: str, out: list[str]) -> None:
    if isinstance(value, pydantic.BaseModel):
        if getattr(value, "is_unknown", False) is True:
            out.append(f"{where}: unknown variant {getattr(value, 'raw', None)!r}"[:200])
            return
        for name in value.__pydantic_extra__ or {}:
            out.append(f"{where}.{name}: not a field of {type(value).__name__}")
        for name in type(value).model_fields:
            _strays(getattr(value, name), f"{where}.{name}", out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _strays(item, f"{where}[{i}]", out)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def strays(body: dict[str, Any]) -> list[str]:
    """Where ``body`` leaves the SDK's ``CreateModelInteraction`` (empty: it is all typed)."""
    model = interactions.CreateModelInteraction.model_validate(body)
    out: list[str] = []
    with warnings.catch_warnings():  # the SDK's deprecated fields warn when read
        warnings.simplefilter("ignore", DeprecationWarning)
        _strays(model, "body", out)
    if _strip(model.model_dump(mode="json", by_alias=True)) != _strip(body):
        out.append("body: does not dump back to itself")
    return out

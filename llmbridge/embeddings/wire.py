"""Where one embedding or rerank request goes, and the pieces every family's codec shares.

Rules: a ``Target`` is the provider's own address for one model (its URL prefix, the query
string a URL keeps at its end, the auth headers; ``llmbridge.embeddings.targets`` derives it
from the chat provider, so keys, base URLs and auth are resolved once, where chat resolves
them). A codec builds an ``HttpRequest`` from it (``post``) and reads usage with ``usage_of``.
Inputs are checked here: texts (``str``), or ``ImagePart`` where the family takes images.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..errors import MalformedStreamError, UsageError
from ..parts import ImagePart
from ..providers.base import HttpRequest
from ..response_data import Usage

__all__ = ["Input", "Target", "items_of", "object_of", "texts_of", "usage_of"]

Input = str | ImagePart


@dataclass(frozen=True, slots=True)
class Target:
    """One provider's address for one model: ``prefix + path + query``."""

    provider: str
    family: str
    prefix: str
    headers: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    auth: httpx.Auth | None = None
    model_path: str = ""
    """The model as the provider's URL names it (Gemini's ``models/…``)."""
    region: str = ""
    """The AWS region (Bedrock): the agent runtime's host and a model's ARN name it."""

    def post(self, path: str, body: dict[str, Any]) -> HttpRequest:
        headers = {
            **self.headers,
            "content-type": "application/json",
            "accept": "application/json",
        }
        return HttpRequest(
            method="POST",
            url=f"{self.prefix}{path}{self.query}",
            headers=headers,
            json=body,
            auth=self.auth,
        )


def texts_of(inputs: list[Input], *, target: Target) -> list[str]:
    """``inputs`` as texts: an image is a ``UsageError`` for a family that takes none."""
    for item in inputs:
        if not isinstance(item, str):
            raise UsageError(
                f"{target.provider}: embedding inputs are texts here (got "
                f"{type(item).__name__}); images are embedded by cohere (embed-v4.0), gemini "
                "and vertex (the Gemini embedding models), voyage (multimodal models) and "
                "bedrock (Cohere Embed, Nova)"
            )
    return inputs  # type: ignore[return-value]


def usage_of(*counts: Any) -> Usage | None:
    """A ``Usage`` of the first count that is a number; ``None`` when none is."""
    for count in counts:
        if isinstance(count, (int, float)) and not isinstance(count, bool):
            return Usage(input_tokens=int(count))
    return None


def items_of(data: Any, key: str, *, provider: str) -> list[Any]:
    """``data[key]`` checked to be a list (a ``MalformedStreamError`` naming what came)."""
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise MalformedStreamError(
            f"{provider}: expected {key!r} (a list) in the answer, got {str(data)[:200]!r}",
            provider=provider,
        )
    return items


def object_of(data: Any, key: str) -> dict[str, Any]:
    """``data[key]`` when it is an object, else ``{}`` (an optional part such as ``usage``)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}

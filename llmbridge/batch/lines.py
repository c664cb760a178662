"""Reading one line of a provider's batch results file, the part every adapter shares.

Rules: ``read_line(line, key, provider)`` parses the line and its request id (``custom_id``,
``recordId``): a line that is not a JSON object with that id is a ``MalformedStreamError``
naming the line; ``ended_item`` is the result of a request its job expired or cancelled before
it ran (``status`` ``expired`` or ``cancelled``, an ``APIError`` of type ``batch_<status>``).
"""

from __future__ import annotations

from typing import Any

import orjson

from ..errors import APIError, MalformedStreamError
from .types import BatchResult

__all__ = ["ended_item", "read_line"]


def read_line(line: bytes, key: str, provider: str) -> tuple[dict[str, Any], str]:
    """The parsed ``line`` and its id under ``key`` (module rules)."""
    try:
        item = orjson.loads(line)
        return item, str(item[key])
    except (ValueError, KeyError, TypeError) as exc:
        raise MalformedStreamError(
            f"not a batch results line ({exc!r}): {line[:200]!r}", provider=provider
        ) from None


def ended_item(provider: str, custom_id: str, status: str) -> BatchResult:
    """The result of a request its job expired or cancelled before it ran."""
    word = "expired before it ran" if status == "expired" else "was cancelled before it ran"
    error = APIError(f"the batch {word}", provider=provider, error_type=f"batch_{status}")
    return BatchResult(custom_id, status, None, error)  # type: ignore[arg-type]

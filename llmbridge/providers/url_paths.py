"""Values put into a URL path (model ids, deployments, response ids): checked in one place (pure).

httpx removes dot segments from every URL it sends (RFC 3986, 5.2.4): ``.`` goes, ``..`` goes
with the segment before it. A model id that is ``..`` therefore sent ``bedrock:..``'s validly
signed request to ``POST /converse-stream`` and ``bedrock:.``'s to ``/model/converse-stream``:
another operation than the one asked for, with the caller's credentials. Rules:

* ``path_segment(value, safe=…, provider=…)`` is ``value`` percent-encoded as one path segment
  (``urllib.parse.quote``: ``/`` and ``%`` are always encoded, so the value stays one segment
  and cannot smuggle an encoded dot); it refuses (``UsageError``, before anything is sent) a
  value that is empty or a dot segment.
* ``path_segments(value, provider=…)`` checks a value that is several segments as given (a
  Gemini ``tunedModels/x`` or ``projects/…/endpoints/…`` name): none of its segments may be
  empty or a dot segment, even percent-encoded (``%2e%2e``, which servers decode).
* A dot segment is ``.`` or ``..``, also before a ``;`` parameter (``..;x``, which some servers
  read as ``..``): ``is_dot_segment``.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from ..errors import UsageError

__all__ = ["is_dot_segment", "path_segment", "path_segments"]


def is_dot_segment(segment: str) -> bool:
    """Whether ``segment`` (decoded) is ``.`` or ``..``, or one of them before a ``;``."""
    return segment.partition(";")[0] in (".", "..")


def _refuse(value: str, provider: str, what: str) -> UsageError:
    return UsageError(
        f"{provider}: {value!r} is not a {what}: it would be sent to another URL path "
        "(empty, '.' and '..' segments are removed or collapsed on the way)"
    )


def path_segment(value: str, *, provider: str, what: str = "model id", safe: str = "") -> str:
    """``value`` as one encoded path segment (see module rules)."""
    if not value or is_dot_segment(value):
        raise _refuse(value, provider, what)
    return quote(value, safe=safe)


def path_segments(value: str, *, provider: str, what: str = "model id") -> str:
    """``value``, a path of several segments, unchanged once every segment is checked."""
    if any(not part or is_dot_segment(unquote(part)) for part in value.split("/")):
        raise _refuse(value, provider, what)
    return value

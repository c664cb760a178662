"""Gemini Batch Mode's input file: the Files API's resumable upload, and the inline form of a
small file.

Rules (https://ai.google.dev/gemini-api/docs/batch-mode, google-genai's ``files.upload``): a
``POST {host}/upload/v1beta/files`` with ``X-Goog-Upload-Protocol: resumable``,
``X-Goog-Upload-Command: start`` and the file's length and type in
``X-Goog-Upload-Header-Content-Length`` / ``-Content-Type`` (body ``{"file": {"display_name"}}``)
answers the session's URL in ``x-goog-upload-url``; the JSONL then goes there in one
``X-Goog-Upload-Command: upload, finalize`` request at offset 0, streamed from disk (sent again
whole when the loop retries it), and the answer's ``file.name`` (``files/…``) names it. The
session URL is followed on the API's own scheme and host (as the SDK does with a base URL). An
inline batch is the same lines as ``{"request", "metadata": {"key"}}`` items: ``inline_chunk``
rewrites a file that fits, line by line.
"""

from __future__ import annotations

import tempfile
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from ..errors import MalformedStreamError
from ..providers.base import HttpRequest
from ..stream.fetch import answer_with
from .jsonl import SPOOL_BYTES, Chunk

if TYPE_CHECKING:
    from .calls import BatchCall

__all__ = ["CONTENT_TYPE", "inline_chunk", "upload_file"]

CONTENT_TYPE = "application/jsonl"


_KEY, _REQUEST = b'{"key":', b',"request":'
_ITEM, _META = b'{"request":', b',"metadata":{"key":'
GROWTH = len(_ITEM) + len(_META) + 2 - len(_KEY) - len(_REQUEST) - 1
"""Bytes an inline item is longer than its line (13: the size of the inline form is known
before it is written)."""


def inline_chunk(chunk: Chunk, limit: int) -> Chunk | None:
    """``chunk``'s lines as inline items joined by ``,`` (``None``: over ``limit`` bytes).

    A line is ``{"key":K,"request":B}`` as ``GeminiBatches.line`` writes it; the item is
    ``{"request":B,"metadata":{"key":K}}``, cut and joined as bytes: the first ``,"request":``
    ends ``K`` (inside a JSON string every ``"`` is escaped)."""
    if chunk.size + GROWTH * chunk.count > limit:
        return None
    out = Chunk(tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES), 0, 0)  # noqa: SIM115 - closed by Chunk.close
    chunk.file.seek(0)
    for raw in chunk.file:  # a line at a time
        line = raw.rstrip(b"\n")
        cut = line.find(_REQUEST, len(_KEY))
        if not line.startswith(_KEY) or cut < 0 or not line.endswith(b"}"):
            out.close()
            raise MalformedStreamError(f"not a Gemini batch line: {line[:200]!r}")
        item = b"".join(
            (_ITEM, line[cut + len(_REQUEST) : -1], _META, line[len(_KEY) : cut], b"}}")
        )
        if out.count:
            out.file.write(b",")
            out.size += 1
        out.file.write(item)
        out.size += len(item)
        out.count += 1
    return out


async def upload_file(call: BatchCall, chunk: Chunk, *, root: str) -> str:
    """Upload ``chunk`` as a JSONL file (module rules); its name, ``files/…``."""
    api = urlsplit(root)
    start = HttpRequest(
        "POST",
        f"{api.scheme}://{api.netloc}/upload/v1beta/files",
        headers=call.headers(
            **{
                "content-type": "application/json",
                "X-Goog-Upload-Protocol": "resumable",
                "X-Goog-Upload-Command": "start",
                "X-Goog-Upload-Header-Content-Length": str(chunk.size),
                "X-Goog-Upload-Header-Content-Type": CONTENT_TYPE,
            }
        ),
        json={"file": {"display_name": "llmbridge-batch"}},
        auth=call.probe.http.auth,
    )
    answer = await answer_with(call.config, call.provider, start)
    session = answer.headers.get("x-goog-upload-url")
    if not session:
        raise MalformedStreamError(
            "the Files API's upload start came back without an x-goog-upload-url header",
            provider=call.provider.name,
        )
    url = urlunsplit(urlsplit(session)._replace(scheme=api.scheme, netloc=api.netloc))
    done = await call.upload(
        url,
        chunk.pieces,
        length=chunk.size,
        content_type=CONTENT_TYPE,
        headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"},
    )
    name = (done.get("file") or {}).get("name") if isinstance(done, dict) else None
    if not isinstance(name, str) or not name:
        raise MalformedStreamError(
            f"the Files API's finalize answer names no file: {str(done)[:200]!r}",
            provider=call.provider.name,
        )
    return name

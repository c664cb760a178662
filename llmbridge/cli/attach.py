"""``--file PATH``: a file on disk → the content part it is sent as.

Rules: the media type comes from the file name (``mimetypes``); ``image/*`` is an
``ImagePart``, ``audio/*`` an ``AudioPart``, anything else a ``DocumentPart`` named after the
file (``text/*`` sent as ``text/plain``; unknown types as ``application/octet-stream``, which
a provider that cannot take it refuses by name). A missing file is a one-line error.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from ..errors import ConfigurationError
from ..parts import AudioPart, DocumentPart, ImagePart, UserPart

__all__ = ["attachment"]


def attachment(path: Path) -> UserPart:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigurationError(f"--file {path}: {exc.strerror or exc}") from None
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if media_type.startswith("image/"):
        return ImagePart(data=data, media_type=media_type)
    if media_type.startswith("audio/"):
        return AudioPart(data=data, media_type=media_type)
    if media_type.startswith("text/"):
        media_type = "text/plain"
    return DocumentPart(data=data, media_type=media_type, name=path.name)

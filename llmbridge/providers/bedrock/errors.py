"""``bedrock``'s error vocabulary: the AWS host's table (``providers.hosts.aws_errors``).

Every provider folder has an ``errors.py``; Bedrock's table is shared by every provider Bedrock
serves, so it lives with the AWS host and is named here.
"""

from __future__ import annotations

from ..hosts.aws_errors import (
    CONTEXT_PHRASES,
    ERRORS,
    MAX_SHOWN,
    bedrock_error,
    map_http_error,
    stream_error,
)

__all__ = [
    "CONTEXT_PHRASES",
    "ERRORS",
    "MAX_SHOWN",
    "bedrock_error",
    "map_http_error",
    "stream_error",
]

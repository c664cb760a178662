"""``bedrock``'s error vocabulary: the AWS host's table (``providers.hosts.aws_errors``).

Every provider folder has an ``errors.py``; Bedrock's table is shared by every provider Bedrock
serves, so it lives with the AWS host and is named here.
"""

from __future__ import annotations

from ..hosts.aws_errors import (
    CONTEXT_PHRASES,
    ERRORS,
    MAX_SHOWN,
)
from ..hosts.aws_errors import (
    bedrock_error as bedrock_error,
)
from ..hosts.aws_errors import (
    map_http_error as map_http_error,
)
from ..hosts.aws_errors import (
    stream_error as stream_error,
)

__all__ = ["CONTEXT_PHRASES", "ERRORS", "MAX_SHOWN"]  # the functions' home is hosts.aws_errors

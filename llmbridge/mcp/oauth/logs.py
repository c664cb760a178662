"""The ``mcp`` package's OAuth log records, without the flows' secrets.

Rules: every OAuth provider ``llmbridge.mcp.oauth.flow`` makes is registered here (weakly);
a filter on the SDK's OAuth loggers replaces the secrets any of them holds (tokens, codes,
verifiers, client secrets) by ``<redacted>`` in a record's message and traceback text before
any handler sees it. A logger's filters do not apply to records its children propagate, so the
filter sits on each module's logger.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

from ...secrets import secret_scrubber

__all__ = ["scrub_logs_of"]

_SDK_LOGGERS = ("mcp.client.auth.oauth2", "mcp.client.auth.utils", "mcp.client.auth")


def scrub_logs_of(provider: Any) -> None:
    """Scrub ``provider.secrets`` (a live set) from the SDK's OAuth log records."""
    _LIVE.add(provider)
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


_LIVE: weakref.WeakSet[Any] = weakref.WeakSet()
"""Every OAuth provider made (``scrub_logs_of``): their secrets are scrubbed from the records."""


class _ScrubRecords(logging.Filter):
    """Removes the flows' secrets from the SDK's OAuth log records (message and traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = set().union(*(p.secrets for p in list(_LIVE)))
        if not secrets:
            return True
        scrub = secret_scrubber(secrets)
        record.msg, record.args = scrub(record.getMessage()), None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = scrub(text), None
        return True


_FILTER = _ScrubRecords()

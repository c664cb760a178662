"""``PartialJson``'s old address: it lives in ``llmbridge.structured.partial_json`` (a re-export)."""

from .structured.partial_json import PARSE_CREDIT_PER_CHAR, PARSE_CREDIT_PER_FEED, PartialJson

__all__ = ["PARSE_CREDIT_PER_CHAR", "PARSE_CREDIT_PER_FEED", "PartialJson"]

"""``llmbridge models PROVIDER``: the models a provider lists, one per line.

Rules: columns are the model string (ready for ``chat``), the context window and the display
name (``-`` where the provider does not say); ``--json`` prints each ``ModelInfo`` as a JSON
line instead. Errors print one line (and, for a server that is not running, where the CLI
looked) and exit 1.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from ..client import Client
from ..errors import LLMBridgeError
from .chat import connection_hint

__all__ = ["run_models"]


async def run_models(provider: str, base_url: str | None, as_json: bool) -> int:
    options: dict[str, Any] = {"base_url": base_url} if base_url else {}
    async with Client(providers={provider: options} if options else None) as client:
        try:
            models = await client.list_models(provider)
        except LLMBridgeError as exc:
            print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
            try:  # a provider that could not be built (no region, no key) has no URL to name
                where = getattr(client.provider(provider), "base_url", None)
            except LLMBridgeError:
                where = None
            hint = connection_hint(exc, provider, where)
            if hint:
                print(f"hint: {hint}", file=sys.stderr)
            return 1
    for m in sorted(models, key=lambda m: m.id):
        if as_json:
            row = {"model": m.model, "display_name": m.display_name, "created": m.created}
            row |= {"context_window": m.context_window, "max_output_tokens": m.max_output_tokens}
            print(orjson.dumps(row).decode())
        else:
            window = f"{m.context_window:,}" if m.context_window else "-"
            print(f"{m.model}\t{window}\t{m.display_name or '-'}")
    return 0

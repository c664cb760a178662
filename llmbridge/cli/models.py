"""``llmbridge models PROVIDER``: the models a provider lists, one per line.

Rules: columns are the model string (ready for ``chat``), the context window and the display
name (``-`` where the provider does not say); ``--json`` prints each ``ModelInfo`` as a JSON
line instead. Errors print one line (and, for a server that is not running, where the CLI
looked) and exit 1. What the server names is printed inert (``terminal``).
"""

from __future__ import annotations

from typing import Any

from ..client import Client
from ..errors import LLMBridgeError, NotFoundError
from ..terminal import json_line, terminal_text, terminal_url
from .report import HTML, report

__all__ = ["run_models"]


async def run_models(
    provider: str, base_url: str | None, as_json: bool, api_key: str | None = None
) -> int:
    options: dict[str, Any] = {"base_url": base_url} if base_url else {}
    if api_key:
        options["api_key"] = api_key
    built = None
    try:
        async with Client(providers={provider: options} if options else None) as client:
            built = client.provider(provider)  # no key, unknown name: said once, here
            models = await client.list_models(built)
    except LLMBridgeError as exc:
        hint = None
        where = getattr(built, "base_url", None)
        if isinstance(exc, NotFoundError) and where and not HTML.search(exc.message):
            hint = f"nothing lists models at {where}: is --base-url the server's API root?"
        report(exc, as_json=as_json, provider=built, name=provider, hint=hint)
        return 1
    for m in sorted(models, key=lambda m: m.id):
        if as_json:
            row = {"model": m.model, "display_name": m.display_name, "created": m.created}
            row |= {"context_window": m.context_window, "max_output_tokens": m.max_output_tokens}
            print(json_line(row))
        else:
            window = f"{m.context_window:,}" if m.context_window else "-"
            name = terminal_text(m.display_name or "-").replace("\t", " ").replace("\n", " ")
            print(f"{terminal_url(m.model)}\t{window}\t{name}")
    return 0

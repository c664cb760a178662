"""``llmbridge embed MODEL TEXT...``: embed texts and print each vector's size and first values.

Rules: one line per text (its index, the dimensions, the first 5 values); ``--json`` prints
one JSON line per text with the whole vector, then one with the model and usage. Options map
to ``client.embed``'s (``--dimensions``, ``--input-type``, ``--output-type``); keys come from
the environment or ``--api-key``. Errors print one line and exit 1.
"""

from __future__ import annotations

from typing import Any

from ..client import Client
from ..errors import LLMBridgeError
from ..providers.registry import split_model
from ..terminal import json_line
from .report import report

__all__ = ["run_embed"]

SHOWN = 5
"""Values printed per vector (text output)."""


async def run_embed(
    model: str,
    texts: list[str],
    *,
    options: dict[str, Any],
    as_json: bool,
    base_url: str | None = None,
    api_key: str | None = None,
) -> int:
    config: dict[str, Any] = {"base_url": base_url} if base_url else {}
    if api_key:
        config["api_key"] = api_key
    try:
        name = split_model(model)[0]
        async with Client(providers={name: config} if config else None) as client:
            got = await client.embed(model, texts, **options)
    except LLMBridgeError as exc:
        report(exc, as_json=as_json)
        return 1
    for index, vector in enumerate(got.vectors):
        if as_json:
            print(json_line({"index": index, "dimensions": len(vector), "vector": vector}))
        else:
            head = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in vector[:SHOWN])
            more = ", ..." if len(vector) > SHOWN else ""
            print(f"{index}\t{len(vector)} dimensions\t[{head}{more}]")
    tokens = None if got.usage is None else got.usage.input_tokens
    if as_json:
        print(json_line({"model": got.model, "input_tokens": tokens, "warnings": got.warnings}))
    else:
        for warning in got.warnings:
            print(f"warning: {warning}")
    return 0

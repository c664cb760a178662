"""The prompt fallback for structured output: ask for the JSON in the system prompt.

Rules:

* ``plan_format`` is the one decision, made per request from ``request.format_mode`` and the
  model's ``Capabilities.json_mode``:

  - ``native``, or ``auto`` on a model whose API enforces a JSON schema: the request as is.
  - ``auto`` on a model whose API only guarantees JSON (``json_mode == "object"``, e.g.
    DeepSeek): the schema is also written into the system prompt, and the API's JSON mode stays
    on (OpenAI-style JSON modes even require the word "JSON" in the prompt).
  - ``ResponseFormat.json_object()`` (any JSON object, no schema) on a model with a JSON mode
    is asked as ``object`` is: the API's JSON mode (the encoder's), and the prompt says so.
  - ``prompt``, or ``auto`` on a model with no JSON mode (``none``, e.g. Claude 3): the schema
    goes into the system prompt and no ``response_format`` is sent.

* The instructions ask for the JSON value alone; replies that still wrap it in a code fence
  or prose are read anyway (``llmbridge.structured.formats``, ``.partial_json``), and the
  value is validated against the type the app asked for.
* ``auto`` falling back to the prompt on a model with no JSON mode is said in
  ``StreamStart.warnings`` (``plan_format``'s warning, in ``Prepared.warnings`` after the
  encoder's); a JSON-object mode is the encoder's warning.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..providers.base import Capabilities
from ..request import ChatRequest, ResponseFormat

__all__ = ["format_instructions", "plan_format"]


def format_instructions(fmt: ResponseFormat) -> str:
    """The system-prompt text that asks for a JSON value fitting ``fmt``'s schema."""
    if fmt.any_object:
        return (
            "Answer with a single JSON object. Write only the JSON object itself: no "
            "explanation before or after it and no code fence."
        )
    from ..specs.schema_bounds import check_schema_bounds

    check_schema_bounds(fmt.json_schema, what="response_format")
    schema = orjson.dumps(fmt.json_schema, option=orjson.OPT_INDENT_2).decode()
    return (
        f"Answer with a single JSON value ({fmt.name}) that conforms to this JSON schema:\n"
        f"{schema}\n"
        "Write only the JSON value itself: no explanation before or after it and no code fence."
    )


def plan_format(request: ChatRequest, capabilities: Capabilities) -> tuple[ChatRequest, str | None]:
    """The request to send for ``request``'s ``response_format``, and a warning (or ``None``)."""
    fmt = request.response_format
    if fmt is None or request.format_mode == "native":
        return request, None
    mode = capabilities.json_mode
    if fmt.any_object and mode != "none":  # any JSON object: the API's JSON mode, and the
        mode = "object"  # prompt says so (OpenAI's JSON mode even needs "JSON" in it)
    if request.format_mode == "auto" and mode == "schema":
        return request, None
    from ..prompt_tools import merge_system  # the front door; the fallback package loads on demand

    keep_json_mode = request.format_mode == "auto" and mode == "object"
    update: dict[str, Any] = {"messages": merge_system(request.messages, format_instructions(fmt))}
    if not keep_json_mode:
        update["response_format"] = None
    warning = None  # format_mode="prompt" is the app's word; a JSON mode warns in the encoder
    if request.format_mode == "auto" and mode == "none":
        warning = (
            f"response_format: {request.model} has no JSON mode; the schema was written into "
            "the system prompt and the reply is validated by llmbridge"
        )
    return request.model_copy(update=update), warning

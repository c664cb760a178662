"""Structured output: what ``response_format=`` accepts, and the typed value of a reply.

Rules:

* ``response_format=`` takes a pydantic model class, any type a ``TypeAdapter`` takes
  (``list[Item]``, a ``TypedDict``, ``int``...), a ``ResponseFormat``, or a JSON schema dict;
  ``response_format_of`` turns each into a ``ResponseFormat`` (the schema each provider
  encodes, named after the type) that remembers the type for validation.
* ``parse_response`` reads the reply text as JSON — the whole text, else the one fenced code
  block it holds (```` ```json ````), else the JSON between prose — and validates it: a model instance for a model class,
  the plain JSON value for a schema dict. It raises ``StructuredOutputError`` (raw text,
  pydantic's errors, the response as ``partial``) for a refusal (the provider's refusal
  field, or a reply its content filter stopped), a reply cut off at the token limit, text that is not JSON, or JSON that does not fit.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import StructuredOutputError, UsageError
from ..messages import ChatResponse
from ..request import ResponseFormat

__all__ = ["parse_response", "response_format_of"]

_FENCED = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\r?\n(.*?)\r?\n?```", re.DOTALL)
_NAME = re.compile(r"[^a-zA-Z0-9_-]+")


def response_format_of(target: Any) -> ResponseFormat:
    """The ``ResponseFormat`` for what an app passed as ``response_format=``."""
    if isinstance(target, ResponseFormat):
        return target
    if isinstance(target, str):
        if target.lower() in ("json", "json_object"):
            return ResponseFormat.json_object()
        raise UsageError(
            f"response_format={target!r}: a string must be 'json' (any JSON object); for a "
            "shape, pass a pydantic model, a type or a JSON schema dict"
        )
    if isinstance(target, dict):
        return _from_dict(target)
    if isinstance(target, type) and issubclass(target, BaseModel):
        fmt = ResponseFormat(name=target.__name__, schema=target.model_json_schema())
        fmt._target = target
        return fmt
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(target)
        schema = adapter.json_schema()
    except Exception as exc:  # pydantic's errors for types it cannot describe
        raise UsageError(
            f"response_format= takes a pydantic model, a type pydantic can describe, a "
            f"ResponseFormat or a JSON schema dict; {target!r} is none of these ({exc})"
        ) from exc
    name = _NAME.sub("_", getattr(target, "__name__", None) or str(target)).strip("_")
    fmt = ResponseFormat(name=(name or "response")[:64], schema=schema)
    fmt._target = adapter
    return fmt


def _from_dict(target: dict[str, Any]) -> ResponseFormat:
    """A JSON schema dict, or OpenAI's own ``response_format`` shapes (which users copy):
    ``{"type": "json_object"}`` and ``{"type": "json_schema", "json_schema": {...}}``."""
    kind = target.get("type")
    if kind == "json_object" and set(target) == {"type"}:
        return ResponseFormat.json_object()
    inner = target.get("json_schema")
    if kind == "json_schema" and isinstance(inner, dict) and isinstance(inner.get("schema"), dict):
        return ResponseFormat(
            name=str(inner.get("name") or "response"),
            schema=inner["schema"],
            strict=bool(inner.get("strict", True)),
        )
    if kind in ("json_object", "json_schema", "text"):
        raise UsageError(
            f"response_format={target!r}: OpenAI's shapes are read as {{'type': "
            "'json_object'}} or {'type': 'json_schema', 'json_schema': {'name': ..., 'schema': "
            "{...}}}; 'text' is the default (leave response_format out)"
        )
    return ResponseFormat(name=str(target.get("title") or "response"), schema=target)


def _json_text(text: str) -> str:
    """The JSON in a reply: the whole text, the one fenced block, or the span from the first
    ``{`` / ``[`` to the last ``}`` / ``]`` when prose surrounds it."""
    stripped = text.strip()
    if stripped.startswith(("{", "[", '"')) and not stripped.startswith("```"):
        return stripped
    blocks = _FENCED.findall(stripped)
    if len(blocks) == 1:
        return str(blocks[0]).strip()
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    end = max(stripped.rfind("}"), stripped.rfind("]"))
    if starts and end > min(starts):
        return stripped[min(starts) : end + 1]
    return stripped


def parse_response(response: ChatResponse, fmt: ResponseFormat, *, provider: str) -> Any:
    """The validated value of ``response`` (see module docstring)."""
    text = response.text

    def fail(message: str, **extra: Any) -> StructuredOutputError:
        return StructuredOutputError(
            message, raw_text=text, provider=provider, partial=response, **extra
        )

    refusal = (response.provider_data or {}).get("refusal")
    if isinstance(refusal, str) and refusal:
        raise fail(
            f"the model refused to answer in the requested format: {refusal}", refusal=refusal
        )
    if response.finish_reason == "content_filter":
        raise fail(
            "the provider stopped the reply (a refusal or its content filter) before a value "
            "came back",
            refusal=text or "content_filter",
        )
    if response.finish_reason == "length":
        raise fail("the reply was cut off at the token limit before its JSON ended")
    body = _json_text(text)
    target = fmt._target
    try:
        if isinstance(target, type) and issubclass(target, BaseModel):
            return target.model_validate_json(body)
        if isinstance(target, TypeAdapter):
            return target.validate_json(body)
        value = orjson.loads(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        if any(e["type"] == "json_invalid" for e in errors):
            raise fail(f"the reply is not JSON: {text[:120]!r}", errors=errors) from exc
        raise fail(
            f"the reply does not fit {fmt.name}: {exc.error_count()} error(s)", errors=errors
        ) from exc
    except orjson.JSONDecodeError as exc:
        raise fail(f"the reply is not JSON ({exc}): {text[:120]!r}") from exc
    if fmt.any_object and not isinstance(value, dict):
        raise fail(f"the reply is JSON but not an object: {text[:120]!r}")
    return value

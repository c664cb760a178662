"""``ToolSpec``: a tool the app offers the model (name, description, JSON-schema parameters).

Rules: the name is checked against what every built-in provider accepts
(``^[a-zA-Z0-9_-]{1,64}$``); parameters are a JSON-schema object.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["TOOL_NAME_PATTERN", "ToolSpec"]

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"


def _empty_object() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """A tool the model may call. ``parameters`` is a JSON schema of type ``object``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=_empty_object)
    strict: bool | None = None
    """Ask for strict schema adherence where the provider supports it (OpenAI)."""

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type", "object")
        if kind != "object":
            raise ValueError(f"tool parameters must be a JSON schema of type 'object', got {kind!r}")
        return value

"""Tools the app offers the model: specs, validation, registry, the tool loop."""

from .spec import ToolSpec

__all__ = ["ToolSpec"]

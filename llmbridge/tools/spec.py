"""``ToolSpec`` where apps and plug-ins have always imported it, with its builders.

Rules: a re-export only. The model lives on the ground floor (``llmbridge.request``); the
builders and argument validation live in ``llmbridge.specs.builders`` and never import
the model back (``python -m tests.import_graph`` checks it).
"""

from __future__ import annotations

from ..request import TOOL_NAME_PATTERN, ToolSpec
from ..specs.builders import (
    SpecParts,
    spec_from_function,
    spec_from_json_schema,
    spec_from_mcp,
    spec_from_model,
    validate_arguments,
)

__all__ = [
    "TOOL_NAME_PATTERN",
    "SpecParts",
    "ToolSpec",
    "spec_from_function",
    "spec_from_json_schema",
    "spec_from_mcp",
    "spec_from_model",
    "validate_arguments",
]

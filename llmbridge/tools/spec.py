"""``ToolSpec`` where apps and plug-ins have always imported it, with its builders.

Rules: a re-export only. The model lives on the ground floor (``llmbridge.request``); the
builders and argument validation live in ``llmbridge.specs.builders`` and never import
the model back (``python -m tests.import_graph`` checks it). ``validate_arguments`` refuses
arguments nested deeper than ``MAX_ARGUMENT_DEPTH`` (a ``ToolArgumentsError``, checked without
recursion) before pydantic sees them; ``from_json_schema`` (and so ``from_mcp``) accepts a
schema whose ``$ref`` would inline to a huge tree, and the encoders of APIs without ``$ref``
(Gemini) refuse it with a ``ToolSchemaError`` (``llmbridge.specs.schema_bounds``).
"""

from __future__ import annotations

from ..request import TOOL_NAME_PATTERN, ToolSpec
from ..specs.builders import (
    MAX_ARGUMENT_DEPTH,
    SpecParts,
    spec_from_function,
    spec_from_json_schema,
    spec_from_mcp,
    spec_from_model,
    validate_arguments,
)

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "TOOL_NAME_PATTERN",
    "SpecParts",
    "ToolSpec",
    "spec_from_function",
    "spec_from_json_schema",
    "spec_from_mcp",
    "spec_from_model",
    "validate_arguments",
]

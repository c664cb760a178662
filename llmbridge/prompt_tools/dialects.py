"""Tool-call dialects: the markers a model wraps its calls in and the JSON inside them.

Rules:

* A dialect is data, not code. The default shape is a tag name (``function_call`` gives
  ``<function_call>`` and ``</function_call>``) around a JSON body whose keys are ``name_key``
  plus the accepted spellings of the arguments key; also the tag tool results are wrapped in
  when history is rewritten, and the style the instructions list tools in.
* Leaked-markup dialects (rescue mode) override the markers with literal strings: ``opens``
  (any of them starts a call), ``closes`` (any of them ends it; ``()``: no close marker, the
  call ends at the first text after its JSON), ``trailers`` (markers swallowed right after a
  close, e.g. Kimi's section end). Two more shapes:
  - ``array``: the body may be a JSON array of call objects (Mistral ``[TOOL_CALLS][{...}]``);
  - ``header_end`` + ``name_pattern``: the name is written before the arguments, in a header
    that ends at ``header_end`` (Mistral ``NAME[ARGS]``, Kimi ``functions.NAME:0``, Harmony
    ``... to=functions.NAME ...<|message|>``); group 1 of ``name_pattern`` (searched in the
    header, at most ``max_header`` characters) is the name, and the arguments JSON follows.
* An open marker has two characters at least and holds its first character (``<`` or ``[``)
  nowhere else, and no open marker holds another one's first character after position 0: a
  failed marker prefix never hides another call start (the streaming parser relies on it;
  ``ToolCallParser`` checks it).
* Shipped for prompting: ``FUNCTION_CALL`` (``<function_call>{"name": ..., "arguments": {...}}
  </function_call>``, the default) and ``TOOL_CALL`` (the ``<tool_call>`` JSON format of Hermes /
  Qwen chat templates, results in ``<tool_response>``). Rescue only: ``MISTRAL``,
  ``LLAMA_PYTHON_TAG``, ``KIMI``, ``HARMONY``. ``KNOWN_DIALECTS`` is what rescue mode looks for.
* ``render_call`` writes one call the way a dialect's parser reads it (used for history and the
  instructions' example), deterministically: the object form, which every dialect accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..errors import UsageError
from ..tool_calls import arguments_text

__all__ = [
    "FUNCTION_CALL",
    "HARMONY",
    "KIMI",
    "KNOWN_DIALECTS",
    "LLAMA_PYTHON_TAG",
    "MAX_HEADER",
    "MISTRAL",
    "TOOL_CALL",
    "Dialect",
    "render_call",
]

_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*\Z")
MAX_HEADER = 256
"""Longest name header read before a call that is still unproven is released as text."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """How calls are written in text: ``<tag>{"name": ..., "arguments": {...}}</tag>``."""

    tag: str
    """Tag name of a call, without brackets (also the dialect's name)."""
    result_tag: str
    """Tag name tool results are wrapped in when history is rewritten."""
    name_key: str = "name"
    """Body key holding the tool name."""
    arguments_keys: tuple[str, ...] = ("arguments", "parameters")
    """Body keys accepted for the arguments (the first is the one instructions ask for)."""
    tools_style: Literal["markdown", "json_lines"] = "markdown"
    """How instructions list tools: markdown sections, or Hermes-style JSON inside ``<tools>``."""
    opens: tuple[str, ...] = ()
    """Literal open markers (default: ``<tag>``)."""
    closes: tuple[str, ...] | None = None
    """Literal close markers (default: ``</tag>``; ``()``: none)."""
    trailers: tuple[str, ...] = ()
    """Markers swallowed when they directly follow a close marker."""
    array: bool = False
    """The body may be a JSON array of call objects."""
    header_end: str | None = None
    """Named form: the marker between the name header and the arguments JSON."""
    name_pattern: str | None = None
    """Named form: regex searched in the header; group 1 is the tool name."""
    max_header: int = MAX_HEADER
    """Named form: the longest header read before the markup is released as text (prose that
    only mentions the open marker is held this long at most)."""

    def __post_init__(self) -> None:
        for tag in (self.tag, self.result_tag):
            if not _TAG_NAME.match(tag):
                raise UsageError(f"invalid tag name {tag!r}: use [A-Za-z][A-Za-z0-9_.:-]*")
        if not self.arguments_keys:
            raise UsageError("a dialect needs at least one arguments key")
        for marker in self.open_markers:
            if len(marker) < 2 or marker[0] in marker[1:]:
                raise UsageError(
                    f"open marker {marker!r}: two characters at least, the first one unique"
                )
        if (self.header_end is None) != (self.name_pattern is None):
            raise UsageError("header_end and name_pattern go together")

    @property
    def open_markers(self) -> tuple[str, ...]:
        return self.opens or (f"<{self.tag}>",)

    @property
    def close_markers(self) -> tuple[str, ...]:
        return (f"</{self.tag}>",) if self.closes is None else self.closes

    @property
    def open_tag(self) -> str:
        return self.open_markers[0]

    @property
    def close_tag(self) -> str:
        closes = self.close_markers
        return closes[0] if closes else ""


FUNCTION_CALL = Dialect(tag="function_call", result_tag="function_result")
TOOL_CALL = Dialect(tag="tool_call", result_tag="tool_response", tools_style="json_lines")
MISTRAL = Dialect(
    tag="mistral",
    result_tag="tool_response",
    opens=("[TOOL_CALLS]",),
    closes=(),
    array=True,  # v3 templates: [TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]
    header_end="[ARGS]",  # v11 templates: [TOOL_CALLS]NAME[ARGS]{...} ([CALL_ID]id before [ARGS])
    name_pattern=r"\A\s*([A-Za-z0-9_.\-]+)\s*(?:\[CALL_ID\]\s*[A-Za-z0-9_\-]*\s*)?\Z",
    max_header=96,  # a 64-character name, [CALL_ID] and its id
)
LLAMA_PYTHON_TAG = Dialect(
    tag="python_tag",
    result_tag="tool_response",
    opens=("<|python_tag|>",),
    closes=("<|eom_id|>", "<|eot_id|>"),  # or none: the end of the message
    arguments_keys=("parameters", "arguments"),
)
KIMI = Dialect(
    tag="kimi",
    result_tag="tool_response",
    opens=("<|tool_calls_section_begin|>", "<|tool_call_begin|>"),
    closes=("<|tool_call_end|>",),
    trailers=("<|tool_calls_section_end|>",),
    header_end="<|tool_call_argument_begin|>",
    name_pattern=r"\A\s*(?:<\|tool_call_begin\|>\s*)?(?:functions\.)?([A-Za-z0-9_.\-]+?)(?::\d+)?\s*\Z",
    max_header=128,
)
HARMONY = Dialect(
    tag="harmony",
    result_tag="tool_response",
    opens=("<|start|>", "<|channel|>"),
    closes=("<|call|>",),
    header_end="<|message|>",
    name_pattern=r"\bto=functions\.([A-Za-z0-9_\-]+)",
)
KNOWN_DIALECTS: tuple[Dialect, ...] = (
    FUNCTION_CALL,
    TOOL_CALL,
    MISTRAL,
    LLAMA_PYTHON_TAG,
    KIMI,
    HARMONY,
)


def render_call(
    *,
    name: str,
    arguments: dict[str, Any] | None = None,
    raw_arguments: str | None = None,
    dialect: Dialect,
) -> str:
    """One call as the model is asked to write it. ``raw_arguments`` (JSON text) wins if given."""
    args = raw_arguments if raw_arguments else arguments_text(arguments or {})
    name_key = orjson.dumps(dialect.name_key).decode()
    args_key = orjson.dumps(dialect.arguments_keys[0]).decode()
    body = f"{{{name_key}: {orjson.dumps(name).decode()}, {args_key}: {args}}}"
    return f"{dialect.open_tag}{body}{dialect.close_tag}"

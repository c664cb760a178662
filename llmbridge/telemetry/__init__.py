"""OpenTelemetry for llmbridge: GenAI spans and metrics (optional extra ``llmbridge[otel]``).

Rules:

* Off unless the app turns it on: ``lb.Client(telemetry=True)`` (the global tracer and meter
  providers) or ``lb.Client(telemetry=lb.Telemetry(...))``. Off, nothing here runs and
  ``opentelemetry`` is never imported; on, it is imported when the first stream starts.
* One span per ``stream`` / ``complete`` call (retries included), ``chat {model}``, following
  the GenAI semantic conventions (``llmbridge.telemetry.otel``); one ``execute_tool {name}``
  span per tool call the tool loop runs. Work happens when a stream starts and ends, plus one
  clock reading at its first event: nothing per event.
* Prompt and completion content go on the span only with ``record_content=True``.
* Telemetry never changes what the app gets: a failure inside it is logged, not raised.
* Floors: this package's ``__init__`` is the configuration (``Telemetry``, ``telemetry_from``)
  and imports only ``llmbridge.errors``; ``otel`` stands on it, and the client, the pipeline and the
  tool registry import ``otel`` themselves (function-local) when telemetry is on.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError, UsageError

__all__ = ["Telemetry", "telemetry_from"]


@dataclass(frozen=True, slots=True)
class Telemetry:
    """What to emit, and where (``None``: OpenTelemetry's global providers)."""

    tracer_provider: Any = None
    meter_provider: Any = None
    record_content: bool = False
    """Put prompts and completions on the span (``gen_ai.input.messages``, ...)."""
    cost: bool = True
    """Put ``gen_ai.usage.cost`` (USD) on the span when the ``prices`` extra knows the model."""


def telemetry_from(option: bool | Telemetry | None) -> Telemetry | None:
    """The ``Client(telemetry=...)`` option as a ``Telemetry`` (``None``: off)."""
    if option is None or option is False:
        return None
    if option is not True and not isinstance(option, Telemetry):
        raise UsageError(f"telemetry= takes True, False or an llmbridge.Telemetry, not {option!r}")
    if not _otel_installed():  # said now, not at the first request
        raise ConfigurationError(
            "telemetry= needs OpenTelemetry: pip install 'llmbridge[otel]' "
            "(opentelemetry-api is not installed)"
        )
    return Telemetry() if option is True else option


def _otel_installed() -> bool:
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ImportError:  # no opentelemetry package at all
        return False

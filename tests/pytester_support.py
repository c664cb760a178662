"""What the tests that run the pytest plug-in in a pytester sandbox share: the ``-p`` options
that load it (unless its entry point is installed) and the check that every test passed."""

from __future__ import annotations

import importlib.metadata

import pytest

__all__ = ["passed", "plugin_args"]


def plugin_args() -> list[str]:
    """``-p`` the plug-in unless its ``pytest11`` entry point is installed (it then loads)."""
    installed = any(
        ep.value == "llmbridge.testing.pytest_plugin"
        for ep in importlib.metadata.entry_points(group="pytest11")
    )
    return ["-p", "no:randomly"] + ([] if installed else ["-p", "llmbridge.testing.pytest_plugin"])


def passed(result: pytest.RunResult) -> None:
    """At least one test ran and every one passed."""
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 1 and set(outcomes) <= {"passed", "seconds"}, outcomes

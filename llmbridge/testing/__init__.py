"""Helpers for testing with llmbridge: fixtures, replay and recording, invariant checks."""

from .fixtures import Fixture, load_fixture
from .invariants import assert_split_invariant, check_invariants, decode_body, decode_collect, merge_deltas
from .sse import SSEParser

__all__ = [
    "Fixture",
    "SSEParser",
    "assert_split_invariant",
    "check_invariants",
    "decode_body",
    "decode_collect",
    "load_fixture",
    "merge_deltas",
]

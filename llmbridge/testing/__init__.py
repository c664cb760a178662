"""Helpers for testing with llmbridge: fixtures, replay and recording, invariant checks."""

from .fixtures import Fixture, load_fixture
from .invariants import (
    assert_split_invariant,
    check_invariants,
    decode_body,
    decode_collect,
    merge_deltas,
)
from .offline import offline
from .prepared import prepared_decoder
from .record import Recording, RecordingTransport, record_fixture
from .replay import ReplayMismatch, ReplayTransport, replay_client
from .sse import iter_eventstream, iter_sse

__all__ = [
    "Fixture",
    "Recording",
    "RecordingTransport",
    "ReplayMismatch",
    "ReplayTransport",
    "assert_split_invariant",
    "check_invariants",
    "decode_body",
    "decode_collect",
    "iter_eventstream",
    "iter_sse",
    "load_fixture",
    "merge_deltas",
    "offline",
    "prepared_decoder",
    "record_fixture",
    "replay_client",
]

"""Helpers for testing with llmbridge: fixtures, replay and recording, invariant checks."""

from ..stream.aws_eventstream import iter_eventstream as iter_eventstream
from ..stream.bounded import iter_sse as iter_sse
from .fixtures import Fixture, load_fixture
from .invariants import (
    assert_split_invariant,
    check_invariants,
    decode_body,
    decode_collect,
    merge_deltas,
)
from .mcp_cassette import MCPRecorder, MCPReplay, record_mcp, replay_mcp
from .offline import offline
from .prepared import prepared_decoder
from .record import Recording, RecordingTransport, record_fixture
from .replay import ReplayMismatch, ReplayTransport, replay_client

__all__ = [
    "Fixture",
    "MCPRecorder",
    "MCPReplay",
    "Recording",
    "RecordingTransport",
    "ReplayMismatch",
    "ReplayTransport",
    "assert_split_invariant",
    "check_invariants",
    "decode_body",
    "decode_collect",
    "load_fixture",
    "merge_deltas",
    "offline",
    "prepared_decoder",
    "record_fixture",
    "record_mcp",
    "replay_client",
    "replay_mcp",
]

"""How much one event costs to build: slotted dataclass vs alternatives.

    python benchmarks/bench_events.py

Events are built once per streamed chunk, so their construction is on the hot path.
"""

from __future__ import annotations

import timeit
from typing import Literal, NamedTuple

from pydantic import BaseModel

from llmbridge import TextDelta, ToolCallChunk


class PydanticDelta(BaseModel):
    type: Literal["text_delta"] = "text_delta"
    text: str


class TupleDelta(NamedTuple):
    text: str


def main() -> None:
    n = 200_000
    cases = {
        "llmbridge TextDelta (slots dataclass)": lambda: TextDelta("hello"),
        "llmbridge ToolCallChunk (3 fields)": lambda: ToolCallChunk("call_1", 0, '{"a"'),
        "dict": lambda: {"type": "text_delta", "text": "hello"},
        "NamedTuple": lambda: TupleDelta("hello"),
        "pydantic BaseModel": lambda: PydanticDelta(text="hello"),
    }
    print(f"{'construction':<40} {'ns/event':>10}")
    for name, fn in cases.items():
        best = min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e9
        print(f"{name:<40} {best:>10.0f}")


if __name__ == "__main__":
    main()

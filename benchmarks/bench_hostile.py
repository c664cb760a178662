"""Hostile tool schemas and arguments: loading and validation stay fast.

    python benchmarks/bench_hostile.py [--markdown]

Rows: loading a 2 KB schema whose ``$defs`` nest ``anyOf[ref next, array of ref next]`` 20
levels deep (38 s before one type per definition); validating a 10,000-character argument
against ``^([a-zA-Z0-9]+)*@example\\.com$`` (a 28-character one took 9.5 s on Python's
backtracking engine); doubling the argument to show the time is linear. Best of 5, fresh
model each load (the model cache is bypassed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note

import llmbridge as lb
from llmbridge.specs.schema_to_model import _Converter

CATASTROPHIC = r"^([a-zA-Z0-9]+)*@example\.com$"


def nested_defs(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for i in range(levels):
        nxt: dict[str, Any] = (
            {"$ref": f"#/$defs/D{i + 1}"} if i + 1 < levels else {"type": "string"}
        )
        defs[f"D{i}"] = {"anyOf": [nxt, {"type": "array", "items": nxt}]}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}


def best(fn: Any, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure() -> dict[str, float]:
    schema = nested_defs(20)
    spec = lb.ToolSpec.from_json_schema(
        "t",
        "",
        {"type": "object", "properties": {"e": {"type": "string", "pattern": CATASTROPHIC}}},
    )

    def validate(n: int) -> None:
        try:
            spec.validate_arguments({"e": "a" * n + "!"})
        except lb.ToolArgumentsError:
            pass

    return {
        "load_20_levels_ms": best(lambda: _Converter(schema).root_model()) * 1e3,
        "validate_10k_ms": best(lambda: validate(10_000)) * 1e3,
        "validate_20k_ms": best(lambda: validate(20_000)) * 1e3,
    }


def markdown(r: dict[str, float]) -> str:
    return "\n".join(
        [
            f"Machine: {machine_note()}. Best of 5.",
            "",
            "| case | time |",
            "|---|---:|",
            f"| load the 20-level `$defs` union schema (2 KB; was 38 s) | {r['load_20_levels_ms']:.1f} ms |",
            f"| validate a 10,000-char argument against `{CATASTROPHIC}` (28 chars took 9.5 s) "
            f"| {r['validate_10k_ms']:.2f} ms |",
            f"| the same with 20,000 chars (linear: about twice) | {r['validate_20k_ms']:.2f} ms |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    r = measure()
    print(markdown(r) if args.markdown else r)


if __name__ == "__main__":
    main()

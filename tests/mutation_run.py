"""Mutation testing of the modules ``tests/MUTATION.md`` names (a dev tool, not run in CI).

``python -m tests.mutation_run tool_calls`` (a name of ``TARGETS``, or ``all``) copies the
checkout to a scratch folder, points mutmut 3 (``pip install mutmut==3.8.1``) at that one module
and the test files that guard it, runs it with the recorded corpus hidden (the figures are a bare
clone's) and prints the kill rate. ``--children N`` (default 1) shares the machine; the scratch
folder (``--scratch``, default ``/tmp/llmbridge-mutation``) keeps mutmut's results for
``mutmut results`` / ``mutmut show <mutant>`` there; ``--survivors`` runs the last run's
survivors again with the checkout's current tests (after adding tests meant to kill them).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECODE_TESTS = ["tests/test_fixtures.py", "tests/reliability/test_big_int_arguments.py"]
TARGETS: dict[str, tuple[str, list[str]]] = {
    "tool_calls": (
        "llmbridge/tool_calls.py",
        [
            "tests/test_tool_call_ids.py",
            "tests/test_tool_calls_ledger.py",
            *DECODE_TESTS,
            "tests/prompt_tools/test_prompt_tools_parser.py",
        ],
    ),
    "fallback_parser": ("llmbridge/prompt_tools/parser.py", ["tests/prompt_tools/"]),
    "fallback_body": ("llmbridge/prompt_tools/body.py", ["tests/prompt_tools/"]),
    "openai": (
        "llmbridge/providers/openai/decode.py",
        [
            "tests/providers/openai/test_openai_chat_decode.py",
            "tests/providers/openai/test_openai_chat_decode_edges.py",
            "tests/providers/openai/test_openai_chat_custom_tools.py",
            "tests/providers/openai/test_openai_real_server_bugs.py",
            *DECODE_TESTS,
        ],
    ),
    "anthropic": (
        "llmbridge/providers/anthropic/decode.py",
        ["tests/providers/anthropic/", *DECODE_TESTS],
    ),
    "gemini": ("llmbridge/providers/gemini/decode.py", ["tests/providers/gemini/", *DECODE_TESTS]),
    "openai_responses": (
        "llmbridge/providers/openai_responses/decode.py",
        ["tests/providers/openai_responses/", *DECODE_TESTS],
    ),
    "cohere": ("llmbridge/providers/cohere/decode.py", ["tests/providers/cohere/", *DECODE_TESTS]),
}
COPIED = ("llmbridge", "tests", "fixtures", "examples", "pyproject.toml")


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{x}"' for x in items) + "]"


def prepare(name: str, scratch: Path) -> Path:
    """A copy of the checkout in ``scratch/name`` whose pyproject configures mutmut."""
    module, tests = TARGETS[name]
    where = scratch / name
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for item in COPIED:
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, where / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, where / item)
    with (where / "pyproject.toml").open("a") as f:
        f.write(
            "\n[tool.mutmut]\n"
            'source_paths = ["llmbridge"]\n'
            f"only_mutate = {_toml_list([module])}\n"
            'also_copy = ["fixtures", "examples"]\n'
            'pytest_add_cli_args = ["-q", "-x", "-p", "no:randomly"]\n'
            f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        )
    return where


def _results(where: Path, env: dict[str, str]) -> dict[str, str]:
    """Each mutant's status (``killed``, ``survived``, ``no tests``, ``timeout``, ...)."""
    listing = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"],
                             cwd=where, env=env, capture_output=True, text=True,
                             check=False).stdout  # fmt: skip
    found = (re.match(r"\s*(\S+): (.+)$", line) for line in listing.splitlines())
    return {m.group(1): m.group(2) for m in found if m}


def run(
    name: str, scratch: Path, children: int, *, survivors: bool = False
) -> tuple[int, int, dict[str, int]]:
    """Run mutmut over ``name`` (``survivors``: again over the last run's survivors only, with
    the checkout's current tests copied in: after adding tests that should kill them)."""
    where = scratch / name
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    env["LLMBRIDGE_CORPUS"] = str(where / "no-corpus")  # the figures of a bare clone
    names: list[str] = []
    if survivors:
        names = [m for m, s in _results(where, env).items() if s in ("survived", "no tests")]
        for copy in (where / "tests", where / "mutants" / "tests"):
            shutil.copytree(ROOT / "tests", copy, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    else:
        prepare(name, scratch)
    if names or not survivors:
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(children),
                        *names], cwd=where, env=env, stdout=subprocess.DEVNULL,
                       check=False)  # fmt: skip
    status: dict[str, int] = {}
    for state in _results(where, env).values():
        status[state] = status.get(state, 0) + 1
    killed = status.get("killed", 0) + status.get("timeout", 0)
    return killed, sum(status.values()), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("target", choices=[*TARGETS, "all"])
    parser.add_argument("--children", type=int, default=1)
    parser.add_argument("--survivors", action="store_true", help="rerun the last survivors")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/llmbridge-mutation"))
    args = parser.parse_args()
    for name in TARGETS if args.target == "all" else [args.target]:
        killed, total, status = run(name, args.scratch, args.children, survivors=args.survivors)
        rate = 100 * killed / total if total else 0.0
        print(f"{TARGETS[name][0]}: {killed}/{total} killed ({rate:.1f} %) {status}", flush=True)


if __name__ == "__main__":
    main()

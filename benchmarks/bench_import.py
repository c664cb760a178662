"""Import time of ``import llmbridge`` against its dependencies alone, fresh interpreters.

    python benchmarks/bench_import.py [--runs 15] [--markdown] [--quick]

Each sample is a new ``python -c`` process timing its imports with ``perf_counter`` (interpreter
start-up excluded), median over runs, with bytecode compiled first (as pip does on install). The llmbridge run also checks that no provider module was
imported and that nothing opened a socket while importing. Also timed: the dependencies
plus pydantic's model machinery (what defining any one ``BaseModel`` costs: ``import pydantic``
alone loads none of it), and "ready to send" (import, ``Client()``, one ``ChatMessage``: the
deferred pydantic schemas and httpcore load there). Peers (the ``openai`` / ``anthropic``
SDKs, pydantic-ai, LiteLLM) are timed the same way when installed.
Budget (stack issue): ``import llmbridge`` ≤ its five dependencies' import time + 35 ms.
``import llmbridge`` loads the package's names on first use (``ChatMessage``, ``Client``, ...).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note

DEPS = "httpx, httpx_sse, pydantic, anyio, orjson"
WITH_MODELS = "httpx, httpx_sse, anyio, orjson\nfrom pydantic import BaseModel\nclass _M(BaseModel):\n    x: int"
READY = 'llmbridge\nllmbridge.Client()\nllmbridge.ChatMessage.user("hi")'

PEERS = {"openai SDK": "openai", "anthropic SDK": "anthropic", "pydantic-ai": "pydantic_ai",
         "LiteLLM": "litellm"}  # fmt: skip

PROBE = """
import socket, sys, time
def _no_network(*a, **k):
    raise RuntimeError("network touched at import")
socket.socket.connect = _no_network
socket.create_connection = _no_network
socket.getaddrinfo = _no_network
t = time.perf_counter()
import {modules}
dt = time.perf_counter() - t
providers = sorted(m for m in sys.modules if m.startswith("llmbridge.providers.")
                   and m.count(".") >= 2 and m.split(".")[2] not in ("base", "registry"))
print(dt, ",".join(providers))
"""


def _env() -> dict[str, str]:
    # LiteLLM fetches its model price list over the network at import unless told not to.
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    # Bytecode as an installed package has it (pip compiles at install): without it every
    # module is compiled from source on each import, which is not what users pay.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_bytecode() -> None:
    """Write the ``.pyc`` files of llmbridge (an editable install has none yet)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "llmbridge")],
        check=True, env=_env(),
    )  # fmt: skip


def sample(modules: str) -> tuple[float, str]:
    env = _env()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(modules=modules)], capture_output=True, text=True,
        env=env,
    )  # fmt: skip
    if proc.returncode:
        raise RuntimeError(f"import {modules} failed: {proc.stderr.strip()[-300:]}")
    out = proc.stdout.split()
    return float(out[0]), (out[1] if len(out) > 1 else "")


def median_ms(modules: str, runs: int) -> tuple[float, str]:
    samples = [sample(modules) for _ in range(runs)]
    return statistics.median(s[0] for s in samples) * 1e3, samples[-1][1]


def measure(runs: int, *, peers: bool = True) -> dict[str, object]:
    warm_bytecode()
    deps, _ = median_ms(DEPS, runs)
    with_models, _ = median_ms(WITH_MODELS, runs)
    ours, loaded = median_ms("llmbridge", runs)
    ready, _ = median_ms(READY, runs)
    peers = {
        name: median_ms(module, max(3, runs // 3))[0]
        for name, module in PEERS.items()
        if peers and importlib.util.find_spec(module) is not None
    }
    return {
        "deps": deps,
        "with_models": with_models,
        "llmbridge": ours,
        "ready": ready,
        "providers_loaded": loaded,
        "peers": peers,
    }


def _over(value: float, budget: float) -> str:
    return " **over budget**" if value > budget else ""


def markdown(r: dict[str, object], runs: int) -> str:
    deps, ours = float(r["deps"]), float(r["llmbridge"])  # type: ignore[arg-type]
    ready, models = float(r["ready"]), float(r["with_models"])  # type: ignore[arg-type]
    peers: dict[str, float] = r["peers"]  # type: ignore[assignment]
    lines = [
        f"Machine: {machine_note()}. Fresh interpreter per sample, median of {runs}; "
        "interpreter start-up excluded; sockets disabled during the import.",
        "",
        "| import | ms |",
        "|---|---:|",
        f"| its five dependencies (`import {DEPS}`) | {deps:.1f} |",
        f"| the same with pydantic's model machinery (one `BaseModel` defined) "
        f"| {float(r['with_models']):.1f} |",  # type: ignore[arg-type]
        f"| `import llmbridge` (budget ≤ the dependencies + 35 = {deps + 35:.0f}; its names "
        f"load on first use) | {ours:.1f}{_over(ours, deps + 35)} |",
        f"| ready to send: import + `Client()` + one `ChatMessage` (over the dependencies with "
        f"pydantic's model machinery: {ready - models:+.1f}) | {ready:.1f} |",
    ]
    lines += [f"| {name} | {ms:.1f} |" for name, ms in peers.items()]
    loaded = r["providers_loaded"] or "none"
    lines.append(f"\nProvider modules loaded by `import llmbridge`: {loaded}.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one run, to check the script runs")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    r = measure(runs, peers=not args.quick)
    if args.markdown:
        print(markdown(r, runs))
        return
    print(f"{machine_note()}; median of {runs} fresh interpreters")
    print(f"dependencies alone     {r['deps']:8.1f} ms")
    print(f"deps + pydantic models {r['with_models']:8.1f} ms")
    print(f"import llmbridge       {r['llmbridge']:8.1f} ms")
    print(f"ready to send          {r['ready']:8.1f} ms")
    print(f"providers loaded       {r['providers_loaded'] or 'none'}")
    for name, ms in r["peers"].items():  # type: ignore[attr-defined]
        print(f"{name:<22} {ms:8.1f} ms")


if __name__ == "__main__":
    main()

"""Coverage-guided fuzzing of every decoder and the prompt-tool parser with atheris.

Not collected by pytest (no ``test_`` prefix). Needs ``pip install atheris``. Run, bounded::

    /work/venv/bin/python tests/reliability/fuzz_atheris.py -max_total_time=120 -rss_limit_mb=2048

Each input picks a real fixture body and 1-3 mutations (the same ones the hypothesis suite
uses, ``mutations.py``), or is fed raw as the body / as fallback-parser text. A crash is any
exception other than an ``LLMBridgeError``, or broken event invariants (except for decoders
with a known invariant bug, listed in ``test_fuzz_decoders.KNOWN_INVARIANT_BUGS``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["llmbridge"]):
    from llmbridge.prompt_tools import KNOWN_DIALECTS, ToolCallParser
    from llmbridge.testing import check_invariants
    from tests.reliability.mutations import OPS, apply, decode_checked, new_decoder
    from tests.reliability.mutations import streamed_fixtures as _fixtures

KNOWN_INVARIANT_BUGS = frozenset({"anthropic", "openai-responses"})
FIXTURES = _fixtures()
TOOLS = ["get_weather", "lookup"]


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 9)
    fx = FIXTURES[fdp.ConsumeIntInRange(0, len(FIXTURES) - 1)]
    check = fx.provider not in KNOWN_INVARIANT_BUGS
    if mode == 0:  # raw bytes as the whole body
        decode_checked(new_decoder(fx), [fdp.ConsumeBytes(fdp.remaining_bytes())], invariants=check)
        return
    if mode == 1:  # raw text for the prompt-tool parser
        rescue = fdp.ConsumeBool()
        parser = ToolCallParser(
            dialects=KNOWN_DIALECTS if rescue else KNOWN_DIALECTS[:1], tool_names=TOOLS,
            rescue=rescue,
        )  # fmt: skip
        events = []
        while fdp.remaining_bytes():
            events.extend(parser.feed(fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 40))))
        events.extend(parser.close())
        check_invariants(events, complete=False)
        return
    body = fx.body
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        op = OPS[fdp.ConsumeIntInRange(0, len(OPS) - 1)]
        a, b = fdp.ConsumeInt(4), fdp.ConsumeInt(4)
        body = apply(body, op, abs(a), abs(b), fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8)))
    cut = fdp.ConsumeIntInRange(0, len(body))
    decode_checked(new_decoder(fx), [body[:cut], body[cut:]], invariants=check)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

"""A tick counter that shows whether the event loop kept running while something blocked.

Timed thresholds ("at least ten ticks in 0.3 s") fail on a loaded CI machine. Instead the
blocking call, running in a worker thread, *waits for the loop to tick*: if the call had been
run on the loop's own thread the ticks could never advance and the wait ends at its timeout,
so the test fails deterministically and only then.

For decoders that must not hold the loop (a hostile body), ``spin()`` ticks ``turns`` at every
turn the loop gives other tasks (a checkpoint, no clock): a reader that yields between two
pieces of a body lets it tick once per piece, one that decodes the whole body in one go lets it
tick about never. ``run()`` also keeps ``longest_gap`` (seconds between two ticks, the worst
stall the loop had) for benchmarks to print; tests assert on ``turns``, never on the clock.
"""

from __future__ import annotations

import time

import anyio
import anyio.lowlevel


class Heartbeat:
    def __init__(self, interval: float = 0.005) -> None:
        self.ticks = 0
        self.turns = 0
        self.interval = interval
        self.longest_gap = 0.0

    async def run(self) -> None:
        last = time.perf_counter()
        while True:
            await anyio.sleep(self.interval)
            now = time.perf_counter()
            self.longest_gap = max(self.longest_gap, now - last)
            last = now
            self.ticks += 1

    async def spin(self) -> None:
        """Tick ``turns`` at every loop turn (see the module header)."""
        while True:
            await anyio.lowlevel.checkpoint()
            self.turns += 1

    def wait_in_thread(self, ticks: int = 3, timeout: float = 10.0) -> int:
        """Block (as a worker thread would) until the loop ticked ``ticks`` times; return how many."""
        start = self.ticks
        deadline = time.monotonic() + timeout
        while self.ticks < start + ticks and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.ticks - start

    async def wait(self, ticks: int = 3, timeout: float = 10.0) -> int:
        """The same from inside the loop (an endpoint the blocked call is waiting for)."""
        start = self.ticks
        with anyio.move_on_after(timeout):
            while self.ticks < start + ticks:  # noqa: ASYNC110 - polls the other task's counter
                await anyio.sleep(0.005)
        return self.ticks - start

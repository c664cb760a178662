"""A tick counter that shows whether the event loop kept running while something blocked.

Timed thresholds ("at least ten ticks in 0.3 s") fail on a loaded CI machine. Instead the
blocking call, running in a worker thread, *waits for the loop to tick*: if the call had been
run on the loop's own thread the ticks could never advance and the wait ends at its timeout,
so the test fails deterministically and only then.
"""

from __future__ import annotations

import time

import anyio


class Heartbeat:
    def __init__(self) -> None:
        self.ticks = 0

    async def run(self) -> None:
        while True:
            await anyio.sleep(0.005)
            self.ticks += 1

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

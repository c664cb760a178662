"""Close a loop's HTTP clients when that loop ends (or from another loop), and dropped streams,
without leaking and without warnings.

Rules:

* Connections belong to the event loop that opened them, and once that loop is closed nothing
  can close them cleanly any more (the descriptor leaks, and asyncio warns "unclosed
  transport" when it is collected). So each loop's clients are closed *on that loop*: at its
  end, or when ``Client.aclose()`` runs on another loop.
* The hook is the one every loop already has for this: async generators left open when the
  loop ends are closed by it (``asyncio.run``'s ``shutdown_asyncgens``, uvloop alike, and trio
  at the end of ``trio.run``), while the loop still runs. ``LoopEnd`` starts one such
  generator, without awaiting anything, and parks it at its ``yield``; its ``finally`` closes
  the clients (shielded: trio closes leftovers inside a cancelled scope).
* ``fire()`` closes them now on the running loop; ``fire_from_elsewhere()`` hands that to
  the owning loop (asyncio: ``call_soon_threadsafe``; trio: a system task through its token);
  ``forget()`` ends a loop that closed without finalizing its generators (a bare
  ``loop.close()``): nothing can be closed then, and no finalizer is left to fail.
* A ``LoopEnd`` dropped unfired (its ``Client`` collected) closes the clients on its trio run
  quietly (trio would warn about the collected generator); a live asyncio loop does that
  itself; a closed one is forgotten (its finalizer would fail on it).
* ``close_dropped`` is that same quiet close for any async generator an object owns (an
  ``EventStream``'s, a ``ToolLoop``'s), called from the owner's ``__del__``: the owner must not
  be in a reference cycle with its generator, or the collector finalizes them all at once.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import anyio

__all__ = ["LoopEnd", "close_dropped", "trio_token"]

log = logging.getLogger("llmbridge")

Close = Callable[[], Awaitable[None]]


async def _closing(end: LoopEnd, close: Close) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        if end.live:
            end.live = False
            with anyio.CancelScope(shield=True):
                try:
                    await close()
                except Exception as exc:  # closing what is already broken: nothing to tell
                    log.debug("llmbridge: closing a loop's HTTP clients: %r", exc)


class LoopEnd:
    """Runs ``close`` on ``loop`` (an asyncio loop or a trio token) when it ends, or on demand.

    Made on ``loop`` itself, from synchronous code (see the module rules)."""

    __slots__ = ("_gen", "live", "loop")

    def __init__(self, loop: object, close: Close) -> None:
        self.loop = loop
        self.live = True
        self._gen = _closing(self, close)
        step = self._gen.asend(None)  # registers it with the running loop's hooks
        try:
            step.send(None)  # runs to the ``yield``: nothing is awaited before it
        except StopIteration:
            pass

    async def fire(self) -> None:
        """Close now (on the owning loop, which is running this)."""
        await self._gen.aclose()

    def fire_from_elsewhere(self) -> None:
        """Ask the owning loop (alive, maybe in another thread) to close them soon."""
        loop, gen = self.loop, self._gen
        trio = sys.modules.get("trio")
        try:
            if trio is not None and isinstance(loop, trio.lowlevel.TrioToken):
                loop.run_sync_soon(_spawn_in_trio, gen)
            else:
                loop.call_soon_threadsafe(_task_on_asyncio, loop, gen)  # type: ignore[attr-defined]
        except RuntimeError:  # the loop has just finished (trio.RunFinishedError included)
            self.forget()

    def forget(self) -> None:
        """The loop is gone without closing its generators: end this one, closing nothing."""
        if not self.live:
            return
        self.live = False
        try:
            self._gen.aclose().send(None)  # ``finally`` sees ``live`` false: nothing to await
        except (StopIteration, RuntimeError):
            pass

    def __del__(self) -> None:
        if not self.live:
            return
        loop = self.loop
        trio = sys.modules.get("trio")
        if trio is not None and isinstance(loop, trio.lowlevel.TrioToken):
            try:
                loop.run_sync_soon(_spawn_in_trio, self._gen)
            except RuntimeError:  # its run has finished (and closed the generator)
                pass
        elif getattr(loop, "is_closed", lambda: False)():
            self.forget()  # else asyncio's finalizer would fail on the closed loop


async def _aclose(gen: AsyncGenerator[Any, None]) -> None:
    try:
        await gen.aclose()
    except Exception:  # already failed, or being closed by the loop's shutdown right now
        pass


def _task_on_asyncio(loop: Any, gen: AsyncGenerator[None, None]) -> None:
    loop.create_task(_aclose(gen))


def _spawn_in_trio(gen: AsyncGenerator[Any, None]) -> None:
    import trio

    trio.lowlevel.spawn_system_task(
        _aclose, gen, name=f"llmbridge: close {getattr(gen, '__qualname__', 'a generator')}"
    )


def trio_token() -> Any:
    """The running trio run's token, if this is a trio run (``None`` otherwise)."""
    trio = sys.modules.get("trio")
    if trio is None:
        return None
    try:
        return trio.lowlevel.current_trio_token()
    except RuntimeError:
        return None


def close_dropped(token: Any, gen: Any) -> None:
    """From a ``__del__``: close ``gen`` (an unfinished async generator) on the trio run of
    ``token``, quietly, as asyncio does for a dropped generator (trio would warn "async
    generator ... garbage collected"). Nothing to do under asyncio (``token`` is ``None``),
    for a finished generator, or once that run is over (it closed its generators)."""
    if token is None or getattr(gen, "ag_frame", None) is None:
        return
    try:
        token.run_sync_soon(_spawn_in_trio, gen)
    except RuntimeError:  # trio.RunFinishedError
        pass

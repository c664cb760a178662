"""What an interactive ``llmbridge chat`` does with a line that is not a message, and with Ctrl-C.

Rules:

* A line starting with ``/`` is a command, never sent to the model: ``/exit`` and ``/quit`` end
  the chat (as Ctrl-D does), ``/help`` lists the commands, ``/clear`` forgets the conversation
  (the system prompt stays), ``/model MODEL`` talks to another model from the next turn (the
  conversation goes on). An unknown command says so and lists them. ``//text`` sends ``/text``.
* Ctrl-C while an answer streams stops that answer, not the chat (``stoppable``): the chat says
  ``[stopped]`` and asks for the next turn. What was said of the answer stays in the
  conversation; a tool loop's unfinished turn is dropped with its user message.
* A one-shot chat (a prompt and no ``-i``) has neither: Ctrl-C ends it (exit 130).
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio

__all__ = ["HELP", "Command", "command_of", "greeting", "stoppable"]

T = TypeVar("T")

HELP = """commands (never sent to the model):
  /exit, /quit     end the chat (so does Ctrl-D)
  /clear           forget the conversation (the system prompt stays)
  /model MODEL     talk to MODEL from the next turn (provider:model)
  /help            this list
  //text           send "/text" to the model
Ctrl-C stops the answer being written; the chat goes on."""

_NAMES = ("exit", "quit", "clear", "model", "help")


@dataclass(frozen=True, slots=True)
class Command:
    """A command line: its name (one of ``/help``'s) and what follows it."""

    name: str
    argument: str = ""


def command_of(line: str) -> Command | str:
    """``line`` as a ``Command``, or as the message to send (``//`` unescaped)."""
    if not line.startswith("/"):
        return line
    if line.startswith("//"):
        return line[1:]
    name, _, argument = line[1:].strip().partition(" ")
    return Command(name.lower(), argument.strip())


def problem_of(command: Command) -> str | None:
    """What is wrong with ``command`` (``None``: it can run)."""
    if command.name not in _NAMES:
        return f"unknown command /{command.name}: /help lists them"
    if command.name == "model" and ":" not in command.argument:
        return "/model takes provider:model, e.g. /model openai:gpt-4.1-mini"
    return None


def greeting(model: str) -> str:
    """What an interactive chat on a terminal says first."""
    return f"chatting with {model}: Ctrl-D or /exit quits, Ctrl-C stops an answer, /help lists commands"


async def stoppable(turn: Callable[[], Awaitable[T]]) -> tuple[T | None, bool]:
    """Run ``turn``; Ctrl-C (SIGINT) while it runs cancels it. Its result (``None`` when it
    was stopped) and whether it was. SIGINT is left as it was found (asyncio's signal receiver
    leaves Python's default handler behind, also where the process had SIGINT ignored)."""
    before = signal.getsignal(signal.SIGINT)
    try:
        return await _stoppable(turn)
    finally:
        if before is not None and signal.getsignal(signal.SIGINT) is not before:
            signal.signal(signal.SIGINT, before)


async def _stoppable(turn: Callable[[], Awaitable[T]]) -> tuple[T | None, bool]:
    stopped = False
    result: T | None = None
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async with anyio.create_task_group() as group:

            async def on_interrupt() -> None:
                nonlocal stopped
                async for _ in signals:
                    stopped = True
                    group.cancel_scope.cancel()
                    return

            group.start_soon(on_interrupt)
            result = await turn()
            group.cancel_scope.cancel()
    return (None, True) if stopped else (result, False)

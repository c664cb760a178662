"""``llmbridge chat``'s run: one answer, or a chat that goes on turn after turn.

Rules: the provider is built once from the flags (``--base-url``, ``--api-key``; keys otherwise
from the environment) and asked for at the start, so a missing key is said before anything
else. Tools come from ``--tool`` and ``--mcp`` (an ``mcpServers`` file); with tools a turn is
the tool loop; a server that asks the user (MCP elicitation) is asked in the terminal
(``llmbridge.cli.chat_elicit``). The history is kept between turns (``messages``); an interactive chat ends at
end of input (Ctrl-D), and an error in one of its turns is reported and the chat goes on.
``--schema`` asks for structured output and validates the answer. Retries are noted on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import orjson

from ..client import Client
from ..errors import ConfigurationError, LLMBridgeError
from ..events import StreamEvent
from ..messages import ChatMessage
from ..providers.base import Provider
from ..providers.registry import split_model
from ..response import Accumulator
from ..stream import RetryPolicy
from ..stream.clients import DEFAULT_TIMEOUT
from ..structured import parse_response, response_format_of
from ..testing.record import RecordingTransport
from ..testing.replay import ReplayMismatch, ReplayTransport
from ..tools.registry import ToolRegistry
from ..tools.results import ToolResult
from .attach import attachment
from .chat import ChatArgs, ChatPrinter, load_tool, replay_fixtures, save_recordings
from .chat_commands import HELP, Command, command_of, greeting, problem_of, stoppable
from .report import retry_notes

__all__ = ["load_schema", "provider_options", "read_turn", "run_chat"]

ReadTurn = Callable[[], "str | None"]


def read_turn() -> str | None:
    """The next user turn from stdin (``None`` at end of input); a prompt on a terminal."""
    while True:
        if sys.stdin.isatty():
            try:
                line = input("> ")
            except EOFError:
                sys.stderr.write("\n")
                return None
        else:
            line = sys.stdin.readline()
            if not line:
                return None
        if line.strip():
            return line.rstrip("\n")


def provider_options(args: ChatArgs, main: str) -> dict[str, dict[str, Any]]:
    """``Client(providers=...)`` from the flags: ``--providers FILE`` (a JSON object of provider
    name → options), then ``--option [PROVIDER.]KEY=VALUE`` (the chat's own provider when none
    is named; a JSON value, else the text), then ``--base-url`` and ``--api-key``."""
    providers: dict[str, dict[str, Any]] = {}
    if args.providers_file is not None:
        try:
            loaded = orjson.loads(args.providers_file.read_bytes())
        except OSError as exc:
            raise ConfigurationError(
                f"--providers {args.providers_file}: {exc.strerror or exc}"
            ) from None
        except orjson.JSONDecodeError as exc:
            raise ConfigurationError(
                f"--providers {args.providers_file}: not JSON ({exc})"
            ) from None
        if not isinstance(loaded, dict) or not all(isinstance(v, dict) for v in loaded.values()):
            raise ConfigurationError(
                f"--providers {args.providers_file}: a JSON object of provider name -> options"
            )
        providers = {str(k): dict(v) for k, v in loaded.items()}
    for option in args.provider_options:
        key, sep, raw = option.partition("=")
        if not sep or not key.strip():
            raise ConfigurationError(
                f"--option takes KEY=VALUE or PROVIDER.KEY=VALUE (got {option!r})"
            )
        name, dot, key = key.strip().rpartition(".")
        try:
            value: Any = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = raw
        providers.setdefault(name if dot else main, {})[key] = value
    own = providers.setdefault(main, {})
    if args.base_url:
        own["base_url"] = args.base_url
    if args.api_key:
        own["api_key"] = args.api_key
    return providers


def load_schema(path: Path) -> Any:
    """``--schema FILE``: a JSON schema (or ``"json"`` for any JSON object) as a format."""
    try:
        schema = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise ConfigurationError(f"--schema {path}: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise ConfigurationError(f"--schema {path}: not JSON ({exc})") from None
    if not isinstance(schema, dict | str):
        raise ConfigurationError(f"--schema {path}: a JSON schema is an object")
    return response_format_of(schema)


class _Session:
    def __init__(self, args: ChatArgs, printer: ChatPrinter) -> None:
        self.args, self.printer = args, printer
        self.model = args.model
        self.provider_name, self.model_name = split_model(args.model)
        self.provider: Provider | None = None
        self.turns: list[list[StreamEvent]] = [[]]
        self.partial: Accumulator | None = None
        """The answer being folded (what Ctrl-C keeps of a stopped one)."""

    def models(self) -> str | list[str]:
        """The model a turn asks, or the fallback chain of it and ``--fallback``'s models."""
        return [self.model, *self.args.fallbacks] if self.args.fallbacks else self.model

    def report(self, exc: BaseException) -> None:
        self.printer.error(exc, provider=self.provider, name=self.provider_name)

    async def run(self, read: ReadTurn) -> int:
        args = self.args
        providers = provider_options(args, self.provider_name)
        config = providers.setdefault(self.provider_name, {})
        tools = [load_tool(ref) for ref in args.tools]
        fmt = load_schema(args.schema) if args.schema is not None else None
        options = args.options() | ({"response_format": fmt} if fmt is not None else {})
        transport: httpx.AsyncBaseTransport | None = None
        recorder = replayer = None
        if args.replay:
            fixtures = replay_fixtures(args.replay)
            transport = replayer = ReplayTransport(fixtures, strict=False)
            config.update({**fixtures[0].provider_config, **config, "api_key": "replay-key"})
        elif args.record is not None:
            transport = recorder = RecordingTransport()
        timeout = DEFAULT_TIMEOUT if args.timeout is None else httpx.Timeout(args.timeout)
        messages = [ChatMessage.system(args.system)] if args.system else []
        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(
                httpx.AsyncClient(transport=transport, timeout=timeout)
            )
            client = await stack.enter_async_context(
                Client(
                    http_client=http,
                    providers={k: v for k, v in providers.items() if v} or None,
                    retry=RetryPolicy(max_attempts=1) if transport else None,
                    timeout=args.timeout,
                )
            )
            self.provider = client.provider(self.provider_name)  # no key: said now
            registry = ToolRegistry(tools)
            if args.mcp is not None:
                from ..mcp.elicitation.elicit import ElicitOption
                from ..mcp.hub.servers import connect_mcp_servers
                from ..mcp.oauth.hooks import cli_oauth
                from .chat_elicit import terminal_elicitor

                # with piped input nobody can answer: elicitation is not offered
                elicit: ElicitOption = terminal_elicitor() if sys.stdin.isatty() else False
                servers = await stack.enter_async_context(
                    connect_mcp_servers(args.mcp, client=client, elicit=elicit, oauth=cli_oauth())
                )
                registry = servers.registry
                for fn in tools:
                    registry.register(fn)
            code, error = await self.conversation(read, client, registry, options, messages)
            if recorder is not None:
                save_recordings(
                    recorder,
                    args,
                    client,
                    self.model_name,
                    messages,
                    registry.specs(),
                    self.turns,
                    config,
                    error,
                    options,
                )
        if replayer is not None and code == 0:
            replayer.assert_all_played()
        return code

    async def conversation(
        self,
        read: ReadTurn,
        client: Client,
        registry: ToolRegistry,
        options: dict[str, Any],
        messages: list[ChatMessage],
    ) -> tuple[int, LLMBridgeError | None]:
        """The turns of the chat: the prompt, then (interactive) each line read, a command or a
        message; the exit code and the last turn's error."""
        args = self.args
        code, error = 0, None
        prompt: str | None = args.prompt
        files = [attachment(f) for f in args.files]
        if args.interactive and sys.stdin.isatty():
            sys.stderr.write(greeting(self.model) + "\n")
        with retry_notes(as_json=args.as_json):
            while True:
                text = prompt if prompt is not None else (read() if args.interactive else None)
                from_reader, prompt = prompt is None, None
                if text is None:
                    break
                said = command_of(text) if from_reader else text
                if isinstance(said, Command):
                    if self.command(said, client, messages):
                        break
                    continue
                messages.append(ChatMessage.user(said, *files))
                files = []
                error = await self.answer(client, messages, registry, options)
                self.printer.end_line()
                if error is not None:
                    self.report(error)
                    code = 1
                if not args.interactive:
                    break
        return code, error

    async def answer(
        self,
        client: Client,
        messages: list[ChatMessage],
        registry: ToolRegistry,
        options: dict[str, Any],
    ) -> LLMBridgeError | None:
        """One user turn; in an interactive chat Ctrl-C stops it (``chat_commands``)."""
        if not self.args.interactive:
            return await self.turn(client, messages, registry, options)
        before = len(messages)
        error, stopped = await stoppable(lambda: self.turn(client, messages, registry, options))
        if stopped:
            partial = self.partial.response().message if self.partial is not None else None
            del messages[before:]
            if partial is not None and (partial.text or partial.tool_calls):
                messages.append(partial)  # what was said stays in the conversation
            else:
                messages.pop()  # nothing was said: the question goes too
            self.printer.end_line()
            sys.stderr.write("[stopped]\n")
        return error

    def command(self, command: Command, client: Client, messages: list[ChatMessage]) -> bool:
        """Run an interactive chat's ``command``; whether the chat ends."""
        problem = problem_of(command)
        if problem is not None:
            sys.stderr.write(problem + "\n")
        elif command.name in ("exit", "quit"):
            return True
        elif command.name == "help":
            sys.stderr.write(HELP + "\n")
        elif command.name == "clear":
            del messages[1 if self.args.system else 0 :]
            sys.stderr.write("[conversation cleared]\n")
        else:  # /model
            try:
                client.provider(split_model(command.argument)[0])  # a missing key: said now
            except LLMBridgeError as exc:
                self.report(exc)
                return False
            self.model = command.argument
            self.provider_name, self.model_name = split_model(command.argument)
            sys.stderr.write(f"[now chatting with {self.model}]\n")
        return False

    async def turn(
        self,
        client: Client,
        messages: list[ChatMessage],
        registry: ToolRegistry,
        options: dict[str, Any],
    ) -> LLMBridgeError | None:
        """One user turn: stream it (the tool loop with tools); ``messages`` gets the answer."""
        args = self.args
        loop = None
        events: AsyncIterator[StreamEvent | ToolResult]
        model = self.models()
        if len(registry):
            events = loop = client.run(
                model,
                list(messages),
                tools=registry,
                max_steps=args.max_steps,
                tool_mode=args.tool_mode,
                **options,
            )
        else:
            events = client.stream(model, messages, tool_mode=args.tool_mode, **options)
        acc = self.partial = Accumulator(provider=self.provider_name)
        if self.turns[-1]:
            self.turns.append([])
        try:
            async for event in events:
                if isinstance(event, ToolResult):
                    if self.turns[-1]:
                        self.turns.append([])
                else:
                    self.turns[-1].append(event)
                    if loop is None:  # a tool loop keeps its own conversation
                        acc.add(event)
                self.printer.event(event)
        except LLMBridgeError as exc:
            return exc
        if loop is not None:
            messages[:] = loop.messages
            return None
        response = acc.response()
        messages.append(response.message)
        fmt = options.get("response_format")
        if fmt is not None:
            try:
                parse_response(response, fmt, provider=self.provider_name)
            except LLMBridgeError as exc:
                return exc
        return None


async def run_chat(args: ChatArgs, read: ReadTurn = read_turn) -> int:
    """Run ``llmbridge chat``: 0 when every turn answered, 1 after an error (reported)."""
    printer = ChatPrinter(sys.stdout, as_json=args.as_json, color=args.color)
    session = _Session(args, printer)
    try:
        return await session.run(read)
    except (LLMBridgeError, ReplayMismatch) as exc:
        session.report(exc)
        return 1

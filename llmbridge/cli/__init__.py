"""The llmbridge command: demo, replay, run, chat, models, embed, --version.

Rules: ``demo``, ``replay`` and ``run`` never touch the network (fixtures are served by the
replay transport; ``run SCRIPT --replay DIR`` runs a script so, ``llmbridge.cli.run_script``);
``chat`` is the live command and reads keys from the environment, unless ``--replay`` serves
fixtures instead (``--record`` saves its live calls as fixtures). ``chat --tool
module:function`` (or ``path/to/file.py:function``) runs the tool loop. Output is readable text,
colored only on a terminal and never when ``NO_COLOR`` is set; ``--json`` prints JSON lines
instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from asyncio import CancelledError
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import cast

import anyio

from .._version import __version__
from ..request import ToolMode
from .batch import add_batch_parser, run_batch
from .chat import ChatArgs, ChatPrinter, load_tool, replay_fixtures, use_color
from .demo import bundled_fixtures_dir, describe_event, run_demo, run_replay
from .report import CLIError, report

__all__ = [
    "ChatPrinter",
    "bundled_fixtures_dir",
    "describe_event",
    "entry",
    "load_tool",
    "main",
    "replay_fixtures",
    "use_color",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="llmbridge",
        description="One streaming API over many LLM providers: replay recordings, or chat.",
    )
    parser.add_argument("--version", action="version", version=f"llmbridge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="replay bundled fixtures through every provider (offline)")
    demo.add_argument(
        "--fixtures", type=Path, default=None, help="fixtures folder (default: bundled)"
    )
    demo.add_argument("--json", action="store_true", help="print JSON lines")
    replay = sub.add_parser("replay", help="replay one fixture folder and print its events")
    replay.add_argument(
        "fixture", type=Path, help="a fixture folder (input.json, request.json, response.sse, ...)"
    )
    replay.add_argument("--json", action="store_true", help="print JSON lines")
    run = sub.add_parser(
        "run", help="run a Python script offline: its clients replay recorded fixtures"
    )
    run.add_argument("script", type=Path, help="the script (e.g. a documentation block)")
    run.add_argument(
        "--replay",
        action="append",
        type=Path,
        required=True,
        metavar="FIXTURE",
        help="a fixture folder (or a folder of them) served in order (repeatable)",
    )
    run.add_argument(
        "args", nargs="*", help="the script's own arguments, after '--' (run S.py --replay D -- -v)"
    )
    models = sub.add_parser("models", help="list the models a provider offers")
    models.add_argument("provider", help="a provider name, e.g. openai, anthropic, llamacpp")
    models.add_argument("--base-url", help="the provider's base URL (e.g. a local server)")
    models.add_argument("--api-key", help="the provider's API key (default: its key variable)")
    models.add_argument("--json", action="store_true", help="print JSON lines")
    embed = sub.add_parser("embed", help="embed texts: dimensions and first values per text")
    embed.add_argument("model", help="provider:model, e.g. openai:text-embedding-3-small")
    embed.add_argument("text", nargs="+", help="the text(s) to embed")
    embed.add_argument("--dimensions", type=int, default=None, help="the vectors' size")
    embed.add_argument(
        "--input-type", choices=["query", "document", "classification", "clustering"]
    )
    embed.add_argument(
        "--output-type", choices=["float", "int8", "uint8", "binary", "ubinary"], default="float"
    )
    embed.add_argument("--base-url", help="the provider's base URL (e.g. a local server)")
    embed.add_argument("--api-key", help="the provider's API key (default: its key variable)")
    embed.add_argument("--json", action="store_true", help="print JSON lines (whole vectors)")
    add_batch_parser(sub)
    chat = sub.add_parser(
        "chat", help="stream one answer, running tools if given (keys from the environment)"
    )
    chat.add_argument("model", help="provider:model, e.g. openai:gpt-4.1-mini")
    chat.add_argument(
        "prompt",
        nargs="?",
        help="the user message; '-' reads it from stdin (so does a pipe); none on a terminal: "
        "an interactive chat (Ctrl-D or /exit ends it, Ctrl-C stops an answer, /help)",
    )
    chat.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="go on turn after turn (read from stdin) after the first answer",
    )
    chat.add_argument("--system", help="a system prompt")
    chat.add_argument("--api-key", help="the provider's API key (default: its key variable)")
    chat.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="HTTP timeout per request"
    )
    chat.add_argument("--temperature", type=float, default=None, help="sampling temperature")
    chat.add_argument(
        "--schema",
        type=Path,
        metavar="FILE",
        help="structured output: a JSON schema file the answer must fit (validated)",
    )
    chat.add_argument(
        "--mcp",
        type=Path,
        metavar="CONFIG",
        help="offer the tools of the MCP servers in an mcpServers JSON file (the mcp extra)",
    )
    chat.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="offer this function as a tool and run the tool loop (repeatable; MODULE may be "
        "a file: ./tools.py:fn)",
    )
    chat.add_argument(
        "--tool-mode",
        choices=["auto", "native", "prompt"],
        default="auto",
        help="native tool calling, prompt tools, or auto (native where the model has it)",
    )
    chat.add_argument(
        "--max-tokens", type=int, default=None, help="cap each answer (a base model may not stop)"
    )
    chat.add_argument("--seed", type=int, default=None, help="sampling seed, where supported")
    chat.add_argument(
        "--file",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="attach a file to the prompt: image, audio or document (repeatable)",
    )
    chat.add_argument("--max-steps", type=int, default=8, help="model turns in the tool loop")
    chat.add_argument("--base-url", help="the provider's base URL (e.g. a local server)")
    chat.add_argument(
        "--fallback",
        action="append",
        default=[],
        metavar="MODEL",
        help="the next model of a fallback chain, tried when the one before fails (repeatable)",
    )
    chat.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="[PROVIDER.]KEY=VALUE",
        help="a provider option, e.g. base_url=http://127.0.0.1:8080/v1 or "
        "anthropic.api_version=2023-06-01 (the chat's provider when none is named; repeatable)",
    )
    chat.add_argument(
        "--providers",
        type=Path,
        metavar="FILE",
        help='provider options from a JSON file: {"name": {"base_url": ...}, ...}',
    )
    where = chat.add_mutually_exclusive_group()
    where.add_argument(
        "--replay",
        action="append",
        type=Path,
        default=[],
        metavar="FIXTURE",
        help="serve recorded fixture(s) instead of the network (no key needed)",
    )
    where.add_argument(
        "--record", type=Path, metavar="FIXTURE", help="record the live call(s) as fixture(s)"
    )
    chat.add_argument("--json", action="store_true", help="print JSON lines")
    chat.add_argument("--no-color", action="store_true", help="never color the output")
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args: list[str] = []
    if argv[:1] == ["run"] and "--" in argv:  # what follows '--' is the script's
        script_args, argv = argv[argv.index("--") + 1 :], argv[: argv.index("--")]
    args = parser.parse_args(argv)
    if args.command == "demo":
        return anyio.run(run_demo, args.fixtures or bundled_fixtures_dir(), args.json)
    if args.command == "replay":
        if not (args.fixture / "input.json").is_file():
            report(
                CLIError(f"{args.fixture} is not a fixture folder (no input.json)"),
                as_json=args.json,
            )
            return 2
        return anyio.run(run_replay, args.fixture, args.json)
    if args.command == "run":
        if not args.script.is_file():
            report(CLIError(f"{args.script}: no such script"))
            return 2
        from .run_script import run_script

        return run_script(args.script, args.replay, [*args.args, *script_args])
    if args.command == "models":
        from .models import run_models

        return anyio.run(run_models, args.provider, args.base_url, args.json, args.api_key)
    if args.command == "batch":
        return anyio.run(run_batch, args)
    if args.command == "embed":
        from .embed import run_embed

        options = {
            "dimensions": args.dimensions,
            "input_type": args.input_type,
            "output_type": args.output_type,
        }
        return anyio.run(
            partial(
                run_embed,
                args.model,
                args.text,
                options=options,
                as_json=args.json,
                base_url=args.base_url,
                api_key=args.api_key,
            )
        )
    prompt, interactive = args.prompt, args.interactive
    if prompt == "-" or (prompt is None and not sys.stdin.isatty() and not interactive):
        prompt = sys.stdin.read().strip()
        if not prompt:
            report(CLIError("no prompt: stdin was empty"), as_json=args.json)
            return 2
    elif prompt is None:
        interactive = True  # a terminal and no prompt: chat turn after turn
    chat_args = ChatArgs(
        model=args.model,
        prompt=prompt,
        interactive=interactive,
        api_key=args.api_key,
        timeout=args.timeout,
        temperature=args.temperature,
        schema=args.schema,
        mcp=args.mcp,
        system=args.system,
        tools=args.tool,
        tool_mode=cast(ToolMode, args.tool_mode),
        max_steps=args.max_steps,
        max_tokens=args.max_tokens,
        seed=args.seed,
        files=args.file,
        base_url=args.base_url,
        replay=args.replay,
        record=args.record,
        as_json=args.json,
        color=use_color(sys.stdout, disabled=args.no_color or args.json),
        fallbacks=args.fallback,
        provider_options=args.option,
        providers_file=args.providers,
    )
    from .chat_session import run_chat

    return anyio.run(run_chat, chat_args)


def entry() -> None:
    """The console script: ``main()``, quiet when the reader goes away (``| head``), never a
    traceback: Ctrl-C prints one line and exits 130, any error one line and exits 1
    (``LLMBRIDGE_DEBUG=1`` adds the traceback)."""
    as_json = "--json" in sys.argv[1:]
    try:
        code = main()
        sys.stdout.flush()
    except (KeyboardInterrupt, CancelledError):
        # Python 3.10's asyncio turns Ctrl-C into cancelling the main task, and anyio's runner
        # can only say so with the CancelledError (3.11 and later raise KeyboardInterrupt)
        sys.stderr.write("\ninterrupted\n")
        code = 130
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at devnull so that cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 141  # as a shell reports a SIGPIPE
    except Exception as exc:  # ours or not: one line, never a traceback
        report(exc, as_json=as_json)
        code = 1
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()

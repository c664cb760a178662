"""``llmbridge batch submit|status|results|cancel``: a provider's batch job from the shell.

Rules: ``submit MODEL FILE`` reads a JSONL file (``-``: stdin) of ``{"id", "prompt"}`` or
``{"id", "messages": [...]}`` lines (other keys: ``complete()``'s options, e.g.
``max_tokens``), one line at a time, and prints the job id (``--wait``: then polls until it
ended); ``submit --embed`` reads ``{"id", "input"}`` lines (a text or a list of texts) as an
embeddings batch (``client.batch_embed``); ``status MODEL JOB`` prints the status and counts;
``results MODEL JOB`` one line per request (its id, status, then the text, the vectors' count
and width for embeddings, or the error; ``--json``: the vectors too); ``cancel MODEL JOB``
the status after.
``--base-url``, ``--api-key`` and ``--json`` (JSON lines) work as for ``chat``. A bad line is
a ``CLIError`` naming its line number; errors print one line and exit 1 (2 for bad input).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ..batch.types import BatchJob, BatchRequest, BatchResult
from ..client import Client
from ..embedding_types import EmbeddingResponse
from ..errors import LLMBridgeError
from ..providers.registry import split_model
from ..terminal import json_line
from .report import CLIError, report

__all__ = ["add_batch_parser", "run_batch"]


def add_batch_parser(sub: Any) -> None:
    """The ``batch`` command and its four subcommands."""
    batch = sub.add_parser("batch", help="run a batch job on the provider (submit, status, ...)")
    actions = batch.add_subparsers(dest="action", required=True)
    for name, helptext in (
        ("submit", "submit a JSONL file of prompts; print the job id"),
        ("status", "print a job's status and counts"),
        ("results", "print each request's result"),
        ("cancel", "cancel a job"),
    ):
        action = actions.add_parser(name, help=helptext)
        action.add_argument("model", help="provider:model, e.g. openai:gpt-4.1-mini")
        if name == "submit":
            action.add_argument(
                "file", help='JSONL lines {"id", "prompt"} or {"id", "messages"}; - for stdin'
            )
            action.add_argument("--wait", action="store_true", help="poll until the job ended")
            action.add_argument(
                "--embed", action="store_true", help='an embeddings batch: {"id", "input"} lines'
            )
            action.add_argument("--poll-interval", type=float, default=10.0, help="seconds")
        else:
            action.add_argument("job", help="the job id submit printed")
        action.add_argument("--base-url", help="the provider's base URL (e.g. a local server)")
        action.add_argument("--api-key", help="the provider's API key (default: its key variable)")
        action.add_argument("--json", action="store_true", help="print JSON lines")


def read_requests(lines: Iterator[str]) -> Iterator[BatchRequest]:
    """``BatchRequest``s from JSONL lines (module rules), one at a time."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
            options = {k: v for k, v in item.items() if k not in ("id", "prompt", "messages")}
            messages = item["messages"] if "messages" in item else str(item["prompt"])
            yield BatchRequest(str(item["id"]), messages, **options)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CLIError(f"line {number}: not {{'id', 'prompt' | 'messages'}} ({exc})") from None


def read_inputs(lines: Iterator[str]) -> Iterator[BatchRequest]:
    """``BatchRequest``s of an embeddings batch from ``{"id", "input"}`` lines."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
            inputs = item["input"]
            if not isinstance(inputs, str | list):
                raise TypeError(f"input is a text or a list of texts, not {inputs!r}")
            yield BatchRequest(str(item["id"]), inputs)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CLIError(f"line {number}: not {{'id', 'input'}} ({exc})") from None


def _show(job: BatchJob[Any], as_json: bool) -> None:
    c = job.counts
    if as_json:
        counts = {
            "total": c.total,
            "succeeded": c.succeeded,
            "failed": c.failed,
            "pending": c.pending,
        }
        print(
            json_line(
                {"id": job.id, "status": job.status, "raw_status": job.raw_status, "counts": counts}
            )
        )
    else:
        print(
            f"{job.id}\t{job.status}\t{c.succeeded}/{c.total} succeeded, {c.failed} failed, {c.pending} pending"
        )


def _embedded(result: BatchResult[Any], response: EmbeddingResponse, as_json: bool) -> None:
    if as_json:
        print(json_line({"id": result.id, "status": result.status, "vectors": response.vectors}))
    else:
        print(f"{result.id}\t{result.status}\t{len(response)} vectors of {response.dimensions}")


def _result(result: BatchResult[Any], as_json: bool) -> None:
    response, error = result.response, result.error
    if isinstance(response, EmbeddingResponse):
        _embedded(result, response, as_json)
        return
    if as_json:
        u = None if response is None else response.usage
        usage = (
            None
            if u is None
            else {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}
        )
        text = None if response is None else response.text
        print(
            json_line(
                {
                    "id": result.id,
                    "status": result.status,
                    "text": text,
                    "usage": usage,
                    "error": None if error is None else str(error),
                }
            )
        )
    else:
        said = response.text if response is not None else str(error)
        print(f"{result.id}\t{result.status}\t{said}")


async def _act(client: Client, args: argparse.Namespace) -> None:
    if args.action == "submit":
        stream = sys.stdin if args.file == "-" else Path(args.file).open(encoding="utf-8")  # noqa: ASYNC230, SIM115
        with stream:
            job: BatchJob[Any] = await (
                client.batch_embed(args.model, read_inputs(iter(stream)))
                if args.embed
                else client.batch(args.model, read_requests(iter(stream)))
            )
        if not args.wait:
            print(json_line({"id": job.id, "job": job.to_json()}) if args.json else job.id)
            return
        job = await client.batch_wait(
            job, poll_interval=args.poll_interval, max_interval=max(args.poll_interval, 300.0)
        )
        _show(job, args.json)
        return
    job = client.batch_job(args.model, args.job)  # an embeddings job is known by its endpoint
    if args.action == "cancel":
        _show(await client.batch_cancel(job), args.json)
    elif args.action == "status":
        _show(await client.batch_status(job), args.json)
    else:
        async for result in client.batch_results(job):
            _result(result, args.json)


async def run_batch(args: argparse.Namespace) -> int:
    config: dict[str, Any] = {"base_url": args.base_url} if args.base_url else {}
    if args.api_key:
        config["api_key"] = args.api_key
    try:
        name = split_model(args.model)[0]
        async with Client(providers={name: config} if config else None) as client:
            await _act(client, args)
    except CLIError as exc:
        report(exc, as_json=args.json)
        return 2
    except (LLMBridgeError, OSError) as exc:
        report(exc, as_json=args.json)
        return 1
    return 0

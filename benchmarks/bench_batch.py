"""100,000 batch requests in and their results out: peak memory and ``client.batch()`` throughput.

    python benchmarks/bench_batch.py [--requests 100000] [--quick]

A loopback OpenAI Batch server runs in its own process (its CPU and memory are not the
client's): ``POST /files`` reads the multipart upload as it streams and counts its lines,
``POST /batches`` answers ``completed`` at once, ``GET /batches/{id}`` likewise, and the output
file is streamed back as one chat completion line per request (chunked, 64 KiB chunks).

Run twice: the requests built as they are sent (a generator: the memory a 100,000-request job
needs; first, as the peak RSS is the process's), then built beforehand (a list: the
throughput, building not counted). Measured in the
client's process: ``client.batch()`` (encode every request with the provider's
own ``prepare``, write the JSONL, upload it as a stream, create the job; building the
``BatchRequest``s not counted) in requests per second, reading every result
(``batch_results``: line by line, each decoded to a ``ChatResponse``) in results per second, and
the peak RSS of the process (``ru_maxrss``); ``batch()`` also per second of the client's CPU
time (what the machine's load does not change). Goals (issue 48.3): peak ≤ 150 MB, ``batch()`` ≥
20,000 requests per second. ``--quick``: 5,000 requests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import anyio
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note

import llmbridge as lb

_LINE = (
    '{"id":"b%d","custom_id":"r%d","response":{"status_code":200,"request_id":"q","body":'
    '{"id":"c","object":"chat.completion","created":1,"model":"gpt-4.1-mini","choices":[{"index":0,'
    '"message":{"role":"assistant","content":"answer %d"},"finish_reason":"stop"}],'
    '"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}},"error":null}\n'
)


async def _serve() -> None:
    counts: dict[str, int] = {}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, path = head.split(b" ", 2)[:2]
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                lines, left, tail = 0, length, b""
                while left:  # count the requests as they stream by (never held)
                    piece = await reader.read(min(left, 1 << 20))
                    if not piece:
                        return
                    left -= len(piece)
                    lines += (tail + piece).count(b'"custom_id"')
                    tail = piece[-10:]
                await _answer(writer, method, path.decode(), lines, counts)
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def _json(body: object) -> bytes:
    data = orjson.dumps(body)
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
        len(data),
        data,
    )


async def _answer(
    writer: asyncio.StreamWriter, method: bytes, path: str, lines: int, counts: dict[str, int]
) -> None:
    if path.endswith("/files"):
        file_id = f"file-{len(counts)}"
        counts[file_id] = lines
        writer.write(_json({"id": file_id, "object": "file"}))
    elif path.endswith("/content"):
        total = counts[path.split("/")[-2].replace("out-", "")]
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n")
        writer.write(b"transfer-encoding: chunked\r\n\r\n")
        piece: list[str] = []
        for i in range(total):
            piece.append(_LINE % (i, i, i))
            if len(piece) == 256 or i == total - 1:
                data = "".join(piece).encode()
                writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                piece = []
                await writer.drain()
        writer.write(b"0\r\n\r\n")
    else:  # /batches (create) and /batches/{id}
        file_id = next(reversed(counts))
        total = counts[file_id]
        writer.write(
            _json(
                {
                    "id": f"batch-{file_id}",
                    "object": "batch",
                    "endpoint": "/v1/chat/completions",
                    "status": "completed",
                    "input_file_id": file_id,
                    "output_file_id": f"out-{file_id}",
                    "error_file_id": None,
                    "completion_window": "24h",
                    "created_at": 1,
                    "request_counts": {"total": total, "completed": total, "failed": 0},
                }
            )
        )
    await writer.drain()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _requests(count: int) -> Iterator[lb.BatchRequest]:
    for i in range(count):
        question = lb.ChatMessage.user(f"Question number {i}: what is {i} + 1?")
        yield lb.BatchRequest(f"r{i}", [question], max_tokens=32)


async def _run(url: str, count: int, lazy: bool) -> dict[str, object]:
    requests: Iterable[lb.BatchRequest] = _requests(count) if lazy else list(_requests(count))
    before = _rss_mb()
    async with lb.Client(
        providers={"openai": {"api_key": "sk-bench", "base_url": f"{url}/v1"}}
    ) as client:
        start, cpu = time.perf_counter(), time.process_time()
        job = await client.batch("openai:gpt-4.1-mini", requests)
        submit, cpu = time.perf_counter() - start, time.process_time() - cpu
        del requests
        job = await client.batch_status(job)
        start = time.perf_counter()
        seen = 0
        async for result in client.batch_results(job):
            seen += result.status == "succeeded"
        read = time.perf_counter() - start
    assert seen == count, (seen, count)
    return {
        "requests": count,
        "requests built": "as they are sent (a generator)" if lazy else "beforehand (a list)",
        "jobs": len(job.parts),
        "batch() requests/s": count / submit,
        "per CPU second": count / cpu,
        "results/s": count / read,
        "RSS before (MB)": before,
        "peak RSS (MB)": _rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="5,000 requests")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve())
        return
    count = 5_000 if args.quick else args.requests
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True, bufsize=1
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[1])
        url = f"http://127.0.0.1:{port}"
        runs = [anyio.run(_run, url, count, lazy) for lazy in (True, False)]  # peak RSS: lazy first
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(machine_note(), f"load average {os.getloadavg()[0]:.1f}")
    for figures in runs:
        for name, value in figures.items():
            shown = (
                f"{value:,.1f}"
                if isinstance(value, float)
                else f"{value:,}"
                if isinstance(value, int)
                else value
            )
            print(f"{name:>22}: {shown}")
        print()
    print("goals: peak RSS <= 150 MB, batch() >= 20,000 requests/s")


if __name__ == "__main__":
    main()

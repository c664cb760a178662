"""Loopback batch servers: OpenAI (/files + /batches), Anthropic (/v1/messages/batches) and Gemini
(batchGenerateContent) on a real socket, on the loop under test (``tests.loopback.serve``).

Each job moves one step per status poll: queued → running → ended. A request whose id contains
``fail`` errors, ``expire`` expires, ``cancel`` is cancelled; the others answer
``echo: <the last user text>``. The servers keep what they were sent (``seen``: method, path,
headers, parsed body) so tests compare it with the SDKs' types.
"""

from __future__ import annotations

import base64
import itertools
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from anyio.abc import SocketStream

from tests.loopback import read_request, serve


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def _answer(body: bytes, ctype: str = "application/json", status: int = 200) -> bytes:
    head = f"HTTP/1.1 {status} OK\r\ncontent-type: {ctype}\r\ncontent-length: {len(body)}\r\n\r\n"
    return head.encode() + body


def _fate(custom_id: str) -> str:
    for word in ("fail", "expire", "cancel"):
        if word in custom_id:
            return word
    return "ok"


def _last_text(messages: list[dict[str, Any]]) -> str:
    content = messages[-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content)


@dataclass
class BatchServer:
    """The shared state of one loopback server."""

    seen: list[Seen] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=itertools.count)
    polls_to_end: int = 2

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.ids)}"

    async def handle(self, stream: SocketStream) -> None:
        while True:
            head, body = await read_request(stream)
            await stream.send(self.answer(head, body))

    def answer(self, head: bytes, body: bytes) -> bytes:
        lines = head.decode().split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.seen.append(Seen(method, target, headers, body))
        return self.route(method, target, headers, body)

    def handle_socket(self, conn: socket.socket) -> None:
        """The same server on a blocking socket (``tests.loopback.ThreadedServer``)."""
        data = b""
        while True:
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head, _, data = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(data) < length:
                data += conn.recv(65536)
            body, data = data[:length], data[length:]
            conn.sendall(self.answer(head, body))

    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        raise NotImplementedError

    def advance(self, job: dict[str, Any]) -> None:
        job["polls"] = job.get("polls", 0) + 1


class OpenAIServer(BatchServer):
    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        path = target.split("?")[0]
        if method == "POST" and path.endswith("/files"):
            boundary = headers["content-type"].split("boundary=")[1].encode()
            parts = body.split(b"--" + boundary)
            file_part = next(p for p in parts if b'name="file"' in p)
            content = file_part.split(b"\r\n\r\n", 1)[1].removesuffix(b"\r\n")
            file_id = self.new_id("file")
            self.files[file_id] = content
            return _answer(orjson.dumps({"id": file_id, "object": "file", "purpose": "batch"}))
        if method == "POST" and path.endswith("/batches"):
            data = orjson.loads(body)
            lines = self.files[data["input_file_id"]].splitlines()
            job_id = self.new_id("batch")
            self.jobs[job_id] = {"request": data, "lines": [orjson.loads(x) for x in lines]}
            return _answer(orjson.dumps(self.batch(job_id)))
        if "/batches/" in path:
            job_id = path.split("/batches/")[1].split("/")[0]
            job = self.jobs[job_id]
            if path.endswith("/cancel"):
                job["cancelled"] = True
            else:
                self.advance(job)
            return _answer(orjson.dumps(self.batch(job_id)))
        if "/files/" in path and path.endswith("/content"):
            return _answer(
                self.files[path.split("/files/")[1].split("/")[0]], "application/octet-stream"
            )
        return _answer(
            b'{"error": {"message": "no route", "type": "invalid_request_error"}}', status=404
        )

    def batch(self, job_id: str) -> dict[str, Any]:
        job = self.jobs[job_id]
        polls, lines = job.get("polls", 0), job["lines"]
        status = "validating" if polls == 0 else "in_progress"
        if job.get("cancelled"):
            status = "cancelling" if polls < self.polls_to_end else "cancelled"
        elif polls >= self.polls_to_end:
            status = "completed"
        out = err = None
        done = status in ("completed", "cancelled")
        if done and "output_file_id" not in job:
            job["output_file_id"], job["error_file_id"] = self.results(
                job_id, lines, job.get("cancelled")
            )
        if done:
            out, err = job["output_file_id"], job["error_file_id"]
        failed = sum(_fate(x["custom_id"]) != "ok" for x in lines) if done else 0
        return {
            "id": job_id,
            "object": "batch",
            "endpoint": job["request"]["endpoint"],
            "errors": None,
            "input_file_id": job["request"]["input_file_id"],
            "completion_window": "24h",
            "status": status,
            "output_file_id": out,
            "error_file_id": err,
            "created_at": 1787150474,
            "request_counts": {
                "total": len(lines),
                "completed": len(lines) - failed if done else 0,
                "failed": failed,
            },
        }

    def results(self, job_id: str, lines: list[dict[str, Any]], cancelled: bool) -> tuple[str, str]:
        out, err = [], []
        for n, line in enumerate(lines):
            cid, fate = line["custom_id"], _fate(line["custom_id"])
            if fate == "fail":
                error = {
                    "error": {
                        "message": "bad request",
                        "type": "invalid_request_error",
                        "code": None,
                    }
                }
                err.append(
                    {
                        "id": f"r{n}",
                        "custom_id": cid,
                        "response": {"status_code": 400, "request_id": f"req{n}", "body": error},
                        "error": None,
                    }
                )
            elif fate in ("expire", "cancel"):
                code = "batch_expired" if fate == "expire" else "batch_cancelled"
                err.append(
                    {
                        "id": f"r{n}",
                        "custom_id": cid,
                        "response": None,
                        "error": {"code": code, "message": code},
                    }
                )
            else:
                out.append(
                    {
                        "id": f"r{n}",
                        "custom_id": cid,
                        "response": {
                            "status_code": 200,
                            "request_id": f"req{n}",
                            "body": self.body(line),
                        },
                        "error": None,
                    }
                )
        ids = []
        for rows in (out, err):
            file_id = self.new_id("file")
            self.files[file_id] = b"".join(orjson.dumps(r) + b"\n" for r in rows)
            ids.append(file_id)
        return ids[0], ids[1]

    def body(self, line: dict[str, Any]) -> dict[str, Any]:
        request = line["body"]
        if line["url"].endswith("/embeddings"):
            return embeddings_body(request)
        text = "echo: " + _last_text(request.get("messages") or request["input"])
        if line["url"].endswith("/responses"):
            return {
                "id": "resp_1",
                "object": "response",
                "status": "completed",
                "model": request["model"],
                "output": [
                    {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }
                ],
                "usage": {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8},
            }
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": request["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
        }


def embeddings_body(request: dict[str, Any]) -> dict[str, Any]:
    """An ``/embeddings`` answer: input ``i`` of length ``n`` is ``[n, i]`` (float32, as base64
    when the request asked for it)."""
    inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
    data = []
    for i, text in enumerate(inputs):
        vector = [float(len(text)), float(i)]
        value: Any = vector
        if request.get("encoding_format") == "base64":
            value = base64.b64encode(struct.pack("<2f", *vector)).decode()
        data.append({"object": "embedding", "index": i, "embedding": value})
    tokens = sum(len(t.split()) for t in inputs)
    return {
        "object": "list",
        "data": data,
        "model": request.get("model", "deployment"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


class AnthropicServer(BatchServer):
    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        path = target.split("?")[0]
        if method == "POST" and path.endswith("/messages/batches"):
            job_id = self.new_id("msgbatch")
            self.jobs[job_id] = {"requests": orjson.loads(body)["requests"]}
            return _answer(orjson.dumps(self.batch(job_id)))
        job_id = path.split("/messages/batches/")[1].split("/")[0]
        job = self.jobs[job_id]
        if path.endswith("/results"):
            rows = [self.result(r, job.get("cancelled")) for r in job["requests"]]
            return _answer(b"".join(orjson.dumps(r) + b"\n" for r in rows), "application/binary")
        if path.endswith("/cancel"):
            job["cancelled"] = True
        else:
            self.advance(job)
        return _answer(orjson.dumps(self.batch(job_id)))

    def batch(self, job_id: str) -> dict[str, Any]:
        job = self.jobs[job_id]
        polls, requests = job.get("polls", 0), job["requests"]
        ended = polls >= self.polls_to_end
        status = "ended" if ended else ("canceling" if job.get("cancelled") else "in_progress")
        counts = {
            "processing": 0 if ended else len(requests),
            "succeeded": 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        }
        if ended:
            for r in requests:
                kind = self.result(r, job.get("cancelled"))["result"]["type"]
                counts[kind] += 1
        return {
            "id": job_id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "ended_at": None,
            "created_at": "2026-08-19T14:49:30.044811+00:00",
            "expires_at": "2026-08-20T14:49:30.044811+00:00",
            "archived_at": None,
            "cancel_initiated_at": "2026-08-19T14:50:30+00:00" if job.get("cancelled") else None,
            "results_url": None if not ended else f"/v1/messages/batches/{job_id}/results",
        }

    def result(self, request: dict[str, Any], cancelled: bool) -> dict[str, Any]:
        cid, fate = request["custom_id"], _fate(request["custom_id"])
        if fate == "fail":
            result = {
                "type": "errored",
                "error": {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "bad request"},
                },
            }
        elif fate == "expire":
            result = {"type": "expired"}
        elif fate == "cancel":
            result = {"type": "canceled"}
        else:
            params = request["params"]
            message = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": params["model"],
                "content": [{"type": "text", "text": "echo: " + _last_text(params["messages"])}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 5,
                    "output_tokens": 3,
                    "cache_read_input_tokens": 2,
                    "cache_creation_input_tokens": 0,
                },
            }
            result = {"type": "succeeded", "message": message}
        return {"custom_id": cid, "result": result}


class GeminiServer(BatchServer):
    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        path = target.split("?")[0]
        if method == "POST" and path.endswith(":batchGenerateContent"):
            job_id = "batches/" + self.new_id("b")
            model = path.split("/models/")[1].split(":")[0]
            requests = orjson.loads(body)["batch"]["input_config"]["requests"]["requests"]
            self.jobs[job_id] = {"requests": requests, "model": model}
            return _answer(orjson.dumps(self.batch(job_id)))
        job_id = path.split("/v1beta/")[1]
        if job_id.endswith(":cancel"):
            self.jobs[job_id.removesuffix(":cancel")]["cancelled"] = True
            return _answer(b"{}")
        self.advance(self.jobs[job_id])
        return _answer(orjson.dumps(self.batch(job_id)))

    def batch(self, job_id: str) -> dict[str, Any]:
        job = self.jobs[job_id]
        polls, requests = job.get("polls", 0), job["requests"]
        ended = polls > self.polls_to_end
        state = "BATCH_STATE_PENDING" if polls == 0 else "BATCH_STATE_RUNNING"
        if ended:
            state = "BATCH_STATE_CANCELLED" if job.get("cancelled") else "BATCH_STATE_SUCCEEDED"
        meta: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": f"models/{job['model']}",
            "displayName": "llmbridge",
            "state": state,
            "name": job_id,
            "batchStats": {
                "requestCount": str(len(requests)),
                "pendingRequestCount": str(0 if ended else len(requests)),
            },
        }
        if ended:
            items = [self.item(r) for r in requests]
            failed = sum("error" in i for i in items)
            meta["batchStats"] = {
                "requestCount": str(len(requests)),
                "successfulRequestCount": str(len(items) - failed),
                "failedRequestCount": str(failed),
            }
            meta["output"] = {"inlinedResponses": {"inlinedResponses": items}}
        return {"name": job_id, "metadata": meta, **({"done": True} if ended else {})}

    def item(self, request: dict[str, Any]) -> dict[str, Any]:
        key = request["metadata"]["key"]
        if _fate(key) != "ok":
            return {
                "error": {"code": 3, "message": "bad request", "status": "INVALID_ARGUMENT"},
                "metadata": {"key": key},
            }
        text = "echo: " + request["request"]["contents"][-1]["parts"][-1]["text"]
        response = {
            "candidates": [
                {
                    "content": {"parts": [{"text": text}], "role": "model"},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 5,
                "candidatesTokenCount": 3,
                "totalTokenCount": 8,
            },
            "modelVersion": "gemini-2.5-flash",
        }
        return {"response": response, "metadata": {"key": key}}


@asynccontextmanager
async def running(server: BatchServer) -> AsyncIterator[str]:
    async with serve(server.handle) as url:
        yield url

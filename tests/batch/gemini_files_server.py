"""A loopback Gemini Batch Mode server that also takes input files: the Files API's resumable
upload (start → ``x-goog-upload-url``; upload, finalize → ``{"file": {"name"}}``), a
``batchGenerateContent`` naming ``input_config.file_name``, and a ``responsesFile`` served at
``/download/v1beta/{file}:download?alt=media``, one ``{"key", "response" | "error"}`` line per
request. Inline batches are answered as ``GeminiServer`` answers them."""

from __future__ import annotations

from typing import Any

import orjson

from tests.batch.servers import GeminiServer, _answer


class GeminiFileServer(GeminiServer):
    """``GeminiServer`` with input and responses files (module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sessions: dict[str, dict[str, str]] = {}
        self.finalized: dict[str, bytes] = {}
        """The finalize answer of each upload session (by its request's path)."""

    def answer_of(self, seen: Any) -> bytes:
        """The body this server answered ``seen`` (an upload) with."""
        return self.finalized[seen.path]

    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        path = target.split("?")[0]
        if "upload_id=" in target:
            assert headers["x-goog-upload-command"] == "upload, finalize"
            assert headers["x-goog-upload-offset"] == "0"
            name = "files/" + self.new_id("in")
            self.files[name] = body
            file = {"name": name, "mimeType": "application/jsonl", "sizeBytes": str(len(body))}
            self.finalized[target] = orjson.dumps({"file": file})
            return _answer(self.finalized[target])
        if path == "/upload/v1beta/files" and method == "POST":
            session = self.new_id("upload")
            self.sessions[session] = dict(headers)
            url = f"https://upload.example.invalid/upload/v1beta/files?upload_id={session}"
            extra = f"\r\nx-goog-upload-url: {url}\r\n\r\n".encode()
            return _answer(b"{}").replace(b"\r\n\r\n", extra, 1)
        if path.startswith("/download/v1beta/") and path.endswith(":download"):
            name = path.removeprefix("/download/v1beta/").removesuffix(":download")
            return _answer(self.files[name], "application/octet-stream")
        if method == "POST" and path.endswith(":batchGenerateContent"):
            config = orjson.loads(body)["batch"]["input_config"]
            if "file_name" in config:
                lines = [orjson.loads(x) for x in self.files[config["file_name"]].splitlines()]
                job_id = "batches/" + self.new_id("f")
                model = path.split("/models/")[1].split(":")[0]
                requests = [{"request": x["request"], "metadata": {"key": x["key"]}} for x in lines]
                self.jobs[job_id] = {"requests": requests, "model": model, "file": True}
                return _answer(orjson.dumps(self.batch(job_id)))
        return super().route(method, target, headers, body)

    def batch(self, job_id: str) -> dict[str, Any]:
        data = super().batch(job_id)
        job = self.jobs[job_id]
        output = data["metadata"].get("output")
        if job.get("file") and output is not None:
            name = f"files/out-{job_id.split('/')[1]}"
            items = output["inlinedResponses"]["inlinedResponses"]
            rows = []
            for item in items:
                row = {"key": item.pop("metadata")["key"], **item}
                rows.append(orjson.dumps(row) + b"\n")
            self.files[name] = b"".join(rows)
            data["metadata"]["output"] = {"responsesFile": name}
        return data

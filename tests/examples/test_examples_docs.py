"""Every ```python block in README.md and docs/*.md runs, offline.

A block preceded by ``<!-- replay: path [path ...] -->`` runs with every HTTP client
that llmbridge creates for itself serving those fixtures instead of the network (in order,
with the request each turn builds checked against the recorded one), and dummy keys in the
environment. A block preceded by ``<!-- no-run -->`` is skipped (live servers only); one preceded
by ``<!-- pytest -->`` is a test file, run under pytest by ``test_examples_docs_pytest.py``. Each block
runs in a fresh namespace from the repository root, with the echo plug-in's sources importable.
"""

from __future__ import annotations

import contextlib
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from plugin_install import ECHO_PACKAGE, REPO

from llmbridge.providers import registry
from llmbridge.testing import ReplayTransport, offline

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!--\s*(?P<marker>[^>]*?)\s*-->\s*\n)?```python\n(?P<code>.*?)```", re.S)


def _blocks() -> list[Any]:
    params = []
    for doc in DOCS:
        text = doc.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("code")) + 1
            marker = (match.group("marker") or "").strip()
            if marker == "pytest":  # pytest test files: test_examples_docs_pytest runs them
                continue
            marks = [pytest.mark.skip(reason="marked no-run")] if marker == "no-run" else []
            params.append(
                pytest.param(doc, marker, match.group("code"), id=f"{doc.name}:{line}", marks=marks)
            )
    return params


def test_docs_have_runnable_blocks() -> None:
    blocks = _blocks()
    skipped = [b for b in blocks if b.marks]
    assert len(blocks) >= 20 and len(skipped) <= len(blocks) // 5, "use no-run sparingly"


def _aws_profile(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An AWS profile named ``work`` with dummy keys, and a dummy Bedrock API key
    (docs/bedrock.md): replay needs no signature, only credentials to sign with."""
    (tmp / "aws-config").write_text("[profile work]\nregion = us-east-1\n")
    keys = "aws_access_key_id = AKIDDOCSEXAMPLE\naws_secret_access_key = docs-secret\n"
    (tmp / "aws-credentials").write_text("[work]\n" + keys)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp / "aws-credentials"))
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "doc-test-key")


@pytest.mark.parametrize(("doc", "marker", "code"), _blocks())
def test_doc_block_runs(
    doc: Path,
    marker: str,
    code: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.syspath_prepend(str(ECHO_PACKAGE / "src"))
    monkeypatch.setattr(registry, "_registered", dict(registry._registered))  # no leaks
    transport: ReplayTransport | None = None
    stack = contextlib.ExitStack()
    if marker.startswith("replay:"):
        _aws_profile(tmp_path, monkeypatch)  # before offline(): it then adds no AWS keys
        paths = [REPO / p for p in marker.removeprefix("replay:").split()]
        transport = stack.enter_context(offline(paths))  # what `llmbridge run` does
    else:
        assert not marker, f"unknown marker {marker!r} (use 'no-run' or 'replay: PATH ...')"
    module = types.ModuleType("__doc_block__")  # a real module: dataclasses and hints resolve
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with stack:
        exec(compile(code, doc.name, "exec", dont_inherit=True), module.__dict__)
    if transport is not None:
        transport.assert_all_played()
    sys.stdout.flush()


def test_every_replayed_block_says_how_to_run_it_offline() -> None:
    """Issue 44, item 9: under each block that replays recordings, the one line a reader pastes
    to run it offline (``llmbridge run block.py --replay ...``, which runs it as this test does)."""
    from offline_lines import drifted

    stale = [str(doc.relative_to(REPO)) for doc in drifted()]
    assert not stale, f"run 'python tests/examples/offline_lines.py' to rewrite {stale}"

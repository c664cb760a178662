"""Access to ``../shared/corpus`` (real recorded streams), read at test time only.

Where the corpus is: ``$LLMBRIDGE_CORPUS`` if set, else ``shared/corpus`` next to the checkout.
A test that needs it says so with the ``needed`` mark (or calls ``missing()`` when it finds the
corpus absent). Locally such a test skips with ``REASON`` and the run ends with one loud line
counting them (``summary``, called from ``tests/conftest.py``); under CI (``CI`` set to a true
value) it fails instead, so a checkout without the corpus cannot pass by testing less.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, NoReturn

import orjson
import pytest

CORPUS = Path(
    os.environ.get("LLMBRIDGE_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus"
)
REASON = "../shared/corpus is absent"
needed = pytest.mark.corpus
"""Mark of a test that reads the corpus: skipped (locally) or failed (CI) when it is absent."""


def present() -> bool:
    return (CORPUS / "manifest.json").exists()


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing() -> NoReturn:
    """End a test that needs the absent corpus: a skip locally, a failure under CI."""
    if under_ci():
        pytest.fail(
            f"CI is set and the recorded corpus is absent (looked in {CORPUS}): "
            "provide it (or point LLMBRIDGE_CORPUS at it) rather than test less",
            pytrace=False,
        )
    pytest.skip(REASON)


def gate(item: pytest.Item) -> None:
    """``pytest_runtest_setup``: a test marked ``needed`` runs only with the corpus present."""
    if item.get_closest_marker("corpus") is not None and not present():
        missing()


def summary(reporter: Any) -> None:
    """``pytest_terminal_summary``: one line saying how many tests the absent corpus skipped."""
    skipped = [r for r in reporter.stats.get("skipped", ()) if REASON in str(r.longrepr)]
    if skipped:
        reporter.write_sep(
            "!",
            f"{len(skipped)} tests skipped: {REASON} (looked in {CORPUS}; "
            "set LLMBRIDGE_CORPUS to its path; under CI this is a failure)",
            yellow=True,
            bold=True,
        )


@functools.cache
def manifest() -> list[dict[str, Any]]:
    """The corpus's ``manifest.json``, parsed once per process (collection asks for it from
    some fifty modules; read-only: never change an entry)."""
    return list(orjson.loads((CORPUS / "manifest.json").read_bytes()))


def entries(category: str, *, framing: str | None = None) -> list[Any]:
    """pytest params (one per recording of ``category``), or one ``needed`` param if absent."""
    if not present():
        return [pytest.param(None, marks=needed, id="corpus-absent")]
    items = [e for e in manifest() if e["category"] == category]
    if framing is not None:
        items = [e for e in items if e["framing"] == framing]
    return [pytest.param(e, id=e["file"]) for e in items]


def params(values: list[Any]) -> list[Any]:
    """``values`` as pytest params, or one ``needed`` param if the corpus is absent (an empty
    list would skip as "empty parameter set", which the summary would not count)."""
    return values if present() else [pytest.param(None, marks=needed, id="corpus-absent")]


def body(entry: dict[str, Any]) -> bytes:
    return (CORPUS / entry["file"]).read_bytes()


def expected(entry: dict[str, Any]) -> dict[str, Any] | None:
    name = entry.get("expected_file")
    return json.loads((CORPUS / name).read_text()) if name else None


def request_body(entry: dict[str, Any]) -> dict[str, Any] | None:
    name = entry.get("request_file")
    return json.loads((CORPUS / name).read_text()) if name else None

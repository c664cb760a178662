"""The plug-in point, proven by a real plug-in: ``examples/llmbridge-echo``.

The package is pip-installed (into a temporary folder, see ``plugin_install.py``) and a fresh
interpreter, which reads entry points from installed metadata, resolves ``echo:echo-1`` with no
change to llmbridge, streams the plug-in's fixture through the normal ``Client`` and runs the
plug-in's own conformance tests. Broken plug-ins (import error, not a factory, wrong type) fail
with messages that name the plug-in and what broke.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from plugin_install import ECHO_PACKAGE, pip_install, run_python

STREAM_ECHO_FIXTURE = """
import json, sys
import anyio
import llmbridge as lb
from llmbridge.providers import available_providers
from llmbridge.testing import load_fixture, replay_client

fixture = load_fixture(sys.argv[1])

async def main():
    async with lb.Client(http_client=replay_client(fixture.path)) as client:
        stream = client.stream("echo:echo-1", fixture.request.messages, tools=fixture.request.tools)
        events = [lb.events.event_to_dict(event) async for event in stream]
    print(json.dumps({"providers": available_providers(), "events": events}))

anyio.run(main)
"""

BROKEN_PACKAGE = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "llmbridge-broken-plugins"
        version = "0.0.1"

        [project.entry-points."llmbridge.providers"]
        broken-import = "broken_import_plugin:create"
        not-callable = "broken_shape_plugin:NOT_A_FACTORY"
        wrong-type = "broken_shape_plugin:returns_a_string"

        [tool.setuptools]
        py-modules = ["broken_import_plugin", "broken_shape_plugin"]
    """,
    "broken_import_plugin.py": """
        import llmbridge_dependency_that_is_not_installed  # the plug-in's own bug

        def create(config):
            raise AssertionError("never reached")
    """,
    "broken_shape_plugin.py": """
        NOT_A_FACTORY = {"name": "not-callable"}

        def returns_a_string(config):
            return "I am not a provider"
    """,
}

TRY_BROKEN = """
import anyio
import llmbridge as lb

async def main():
    async with lb.Client() as client:
        for name in ("broken-import", "not-callable", "wrong-type"):
            try:
                client.stream(f"{name}:model-1", [lb.ChatMessage.user("hi")])
            except lb.ConfigurationError as exc:
                print(f"{name}|{exc}")
            else:
                print(f"{name}|NO ERROR")

anyio.run(main)
"""


@pytest.fixture(scope="module")
def echo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pip_install(ECHO_PACKAGE, tmp_path_factory.mktemp("echo"))


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    package = tmp_path_factory.mktemp("broken-pkg") / "llmbridge-broken-plugins"
    package.mkdir()
    for name, text in BROKEN_PACKAGE.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    return pip_install(package, tmp_path_factory.mktemp("broken"))


def test_installed_metadata_declares_the_entry_point(echo_site: Path) -> None:
    (dist,) = echo_site.glob("llmbridge_echo-*.dist-info")
    entry_points = (dist / "entry_points.txt").read_text()
    assert "[llmbridge.providers]" in entry_points
    assert "echo = llmbridge_echo:create" in entry_points


@pytest.mark.parametrize("scenario", ["hello", "tool_call"])
def test_client_discovers_the_plugin_and_streams_its_fixture(
    echo_site: Path, scenario: str
) -> None:
    fixture = ECHO_PACKAGE / "fixtures" / "echo" / scenario
    proc = run_python(["-c", STREAM_ECHO_FIXTURE, str(fixture)], path=[echo_site])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "echo" in out["providers"]
    assert out["events"] == json.loads((fixture / "events.json").read_text())


HIDE_ECHO = """
import importlib.metadata as md
_all = md.entry_points
def _without_echo(**params):  # the environment as it was before 'pip install ./examples/...'
    return [ep for ep in _all(**params) if ep.dist is None or ep.dist.name != "llmbridge-echo"]
md.entry_points = _without_echo
"""


def test_plugin_is_unknown_without_installation() -> None:
    """Holds whether or not the plug-in was installed into this environment as its README says
    (``pip install ./examples/llmbridge-echo``): its entry point is hidden for the check."""
    code = HIDE_ECHO + "import llmbridge as lb; lb.Client().stream('echo:echo-1', [])"
    proc = run_python(code, path=[])
    assert proc.returncode != 0
    assert "unknown provider 'echo'; known providers: anthropic" in proc.stderr


def test_plugin_conformance_suite_passes_against_the_installed_package(echo_site: Path) -> None:
    tests = ECHO_PACKAGE / "tests"
    proc = run_python(
        ["-m", "pytest", str(tests), "-q", "-p", "no:cacheprovider"], path=[echo_site]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_broken_plugins_fail_with_clear_messages(echo_site: Path, broken_site: Path) -> None:
    proc = run_python(TRY_BROKEN, path=[broken_site, echo_site])
    assert proc.returncode == 0, proc.stderr
    messages = dict(line.split("|", 1) for line in proc.stdout.splitlines())
    assert messages["broken-import"].startswith(
        "plug-in provider 'broken-import' (broken_import_plugin:create) failed to import: "
        "ModuleNotFoundError: No module named 'llmbridge_dependency_that_is_not_installed'"
    )
    assert messages["not-callable"] == (
        "plug-in provider 'not-callable' (broken_shape_plugin:NOT_A_FACTORY) is a dict, "
        "not a factory taking a ProviderConfig"
    )
    assert messages["wrong-type"].startswith(
        "provider 'wrong-type': its factory returned a str, which lacks the Provider methods"
    )


def test_a_broken_plugin_does_not_break_the_others(echo_site: Path, broken_site: Path) -> None:
    fixture = ECHO_PACKAGE / "fixtures" / "echo" / "hello"
    proc = run_python(["-c", STREAM_ECHO_FIXTURE, str(fixture)], path=[broken_site, echo_site])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"echo", "broken-import", "not-callable", "wrong-type"} <= set(out["providers"])
    assert out["events"] == json.loads((fixture / "events.json").read_text())

"""Provider registry: model strings, lazy built-ins, plug-ins through entry points."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import registry

NOT_A_PROVIDER = "just a string"

# Model-string prefixes are contract (DESIGN.md): each must stay a provider name.
CONTRACT_PREFIXES = {
    "openai", "openai-responses", "anthropic", "gemini", "openai-compatible", "ollama", "vllm",
    "llamacpp", "lmstudio", "groq", "deepseek", "openrouter", "together", "mistral", "xai",
    "azure", "cerebras", "fireworks",
}  # fmt: skip


def not_a_factory_result(config: Any) -> object:
    return object()


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [
        EntryPoint("good-plugin", "tests.fakes:FakeProvider", registry.ENTRY_POINT_GROUP),
        EntryPoint("broken-import", "no_such_module_xyz:create", registry.ENTRY_POINT_GROUP),
        EntryPoint(
            "not-callable", "tests.test_registry:NOT_A_PROVIDER", registry.ENTRY_POINT_GROUP
        ),
        EntryPoint(
            "wrong-type", "tests.test_registry:not_a_factory_result", registry.ENTRY_POINT_GROUP
        ),
    ]
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [e for e in eps if e.group == group]
    )


def test_split_model_keeps_colons_in_model_names() -> None:
    assert registry.split_model("ollama:llama3.1:8b") == ("ollama", "llama3.1:8b")
    with pytest.raises(lb.ConfigurationError):
        registry.split_model("gpt-4o")


@pytest.mark.usefixtures("plugins")
def test_entry_point_plugin_is_discovered_by_model_string() -> None:
    assert "good-plugin" in registry.available_providers()
    provider = registry.create_provider("good-plugin", lb.ProviderConfig())
    assert provider.name == "fake"


@pytest.mark.usefixtures("plugins")
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("broken-import", "failed to import: ModuleNotFoundError"),
        ("not-callable", "is a str, not a factory"),
        ("wrong-type", "lacks the Provider methods"),
        ("missing", "unknown provider 'missing'; known providers: .*good-plugin"),
    ],
)
def test_broken_plugins_fail_clearly(name: str, message: str) -> None:
    with pytest.raises(lb.ConfigurationError, match=message):
        registry.create_provider(name, lb.ProviderConfig())


def test_register_provider_rejects_bad_names_and_silent_overrides() -> None:
    from tests.fakes import FakeProvider

    with pytest.raises(lb.ConfigurationError):
        lb.register_provider("bad:name", FakeProvider)
    lb.register_provider("dup-test", FakeProvider, replace=True)
    with pytest.raises(lb.ConfigurationError, match="already registered"):
        lb.register_provider("dup-test", FakeProvider)


def test_contract_prefixes_and_every_preset_row_are_provider_names() -> None:
    from llmbridge.providers.openai import PRESETS

    names = set(registry.available_providers())
    assert CONTRACT_PREFIXES <= names
    assert set(PRESETS) <= names


def test_preset_names_come_from_the_table_without_loading_provider_code() -> None:
    code = (
        "import sys; from llmbridge.providers import available_providers;"
        "assert 'ollama' in available_providers();"
        "print(sorted(m for m in sys.modules if m.startswith(('llmbridge.providers.openai',"
        " 'llmbridge.providers.anthropic', 'llmbridge.providers.gemini'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(
        ["llmbridge.providers.openai", "llmbridge.providers.openai.presets"]
    )


def test_unknown_preset_name_is_a_clear_error() -> None:
    from llmbridge.providers.openai import preset_factory

    with pytest.raises(lb.ConfigurationError, match="unknown OpenAI-compatible preset 'nope'"):
        preset_factory("nope")

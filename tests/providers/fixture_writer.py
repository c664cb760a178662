"""Write one ``fixtures/<provider>/<scenario>/`` folder from a request and a wire body (for the
``make_fixtures`` scripts of providers with no server here): the request is what the provider
builds, the goldens what its decoder yields (``tests/test_fixtures.py`` checks both ways).
``write_scenarios`` writes a script's whole table (``request``, ``body``, and optional
``status``, ``headers``, ``config``, ``model`` a scenario)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.testing import decode_collect
from llmbridge.testing.fixtures import Fixture, dump_json
from llmbridge.types import ChatRequest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def write_fixture(
    *,
    provider_name: str,
    scenario: str,
    model: str,
    request: dict[str, Any],
    body: bytes,
    headers: dict[str, str],
    status: int = 200,
    config: dict[str, Any] | None = None,
) -> Path:
    config = dict(config or {})
    provider = create_provider(
        provider_name, ProviderConfig.from_mapping({**config, "api_key": "test-key"})
    )
    chat = ChatRequest(model=model, **request)
    built = provider.build_request(chat)
    step = max(1, len(body) // 5)
    fixture = Fixture(
        path=FIXTURES / provider_name / scenario,
        model=f"{provider_name}:{model}",
        request=chat,
        provider_config=config,
        http_request={
            "method": built.method,
            "url": built.url,
            "headers": {k.lower(): v for k, v in built.redacted_headers().items()},
            "body": built.json,
        },
        status=status,
        headers=headers,
        body=body,
        chunks=[len(body[i : i + step]) for i in range(0, len(body), step)],
    )
    framing = getattr(provider, "framing", "sse")
    events, error = (
        decode_collect(provider.new_decoder(chat), [body], framing=framing)
        if status == 200
        else ([], None)
    )
    fixture.events = events
    fixture.save()
    if error is not None:
        dump_json(
            fixture.path / "error.json", {"class": type(error).__name__, "message": error.message}
        )
    return fixture.path


def write_scenarios(
    scenarios: dict[str, dict[str, Any]],
    *,
    provider_name: str,
    model: str,
    headers: dict[str, str],
    config: dict[str, Any] | None = None,
) -> None:
    """``write_fixture`` for each scenario, the shared defaults under each one's own keys."""
    for scenario, spec in scenarios.items():
        path = write_fixture(
            provider_name=provider_name,
            scenario=scenario,
            model=spec.get("model", model),
            request=spec["request"],
            body=spec["body"],
            headers=spec.get("headers", headers),
            status=spec.get("status", 200),
            config={**(config or {}), **spec.get("config", {})},
        )
        print("wrote", path)

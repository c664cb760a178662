"""``llmbridge models bedrock`` through the existing CLI, credentials and region from the
environment as an AWS user has them."""

from __future__ import annotations

import httpx
import pytest

from llmbridge.cli import main


def test_models_bedrock_lists_foundation_models_and_profiles(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/foundation-models":
            summary = {
                "modelId": "amazon.nova-pro-v1:0",
                "modelName": "Nova Pro",
                "responseStreamingSupported": True,
                "outputModalities": ["TEXT"],
            }
            return httpx.Response(200, json={"modelSummaries": [summary]})
        profile = {
            "inferenceProfileId": "us.amazon.nova-pro-v1:0",
            "inferenceProfileName": "US Nova Pro",
            "type": "SYSTEM_DEFINED",
        }
        return httpx.Response(200, json={"inferenceProfileSummaries": [profile]})

    class FakeClient(httpx.AsyncClient):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(transport=httpx.MockTransport(answer))

    monkeypatch.setattr("llmbridge.stream.clients.httpx.AsyncClient", FakeClient)
    monkeypatch.setenv("AWS_REGION", "ap-northeast-1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-xyz")
    assert main(["models", "bedrock"]) == 0
    assert capsys.readouterr().out == (
        "bedrock:amazon.nova-pro-v1:0\t-\tNova Pro\nbedrock:us.amazon.nova-pro-v1:0\t-\tUS Nova Pro\n"
    )
    assert [r.url.host for r in seen] == ["bedrock.ap-northeast-1.amazonaws.com"] * 2
    assert all(r.headers["authorization"] == "Bearer bedrock-api-key-xyz" for r in seen)


def test_models_bedrock_without_a_region_says_how_to_give_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "k")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/config")
    assert main(["models", "bedrock"]) == 1
    assert "AWS_REGION" in capsys.readouterr().err

"""The ``bedrock`` control plane's lists → ``ModelInfo``: foundation models, then inference
profiles, as one paged list.

``GET /foundation-models`` (``ListFoundationModels``: one page, ``modelSummaries``) then
``GET /inference-profiles`` (``ListInferenceProfiles``: ``inferenceProfileSummaries``, paged by
``nextToken``), on ``bedrock.{region}.amazonaws.com``, signed for service ``bedrock``. The
cursor says which list comes next: ``None`` → foundation models, ``"profiles:"`` + token → a
page of profiles. Only foundation models that stream (``responseStreamingSupported``) and
take text are listed; profiles are listed whole (cross-region ``us.…`` / ``global.…`` ids and
application profiles' ARNs).
"""

from __future__ import annotations

from typing import Any

from ...errors import MalformedStreamError
from ...model_info import ModelInfo

__all__ = ["PAGE_SIZE", "PROFILES", "parse_model_list"]

PAGE_SIZE = 1000
PROFILES = "profiles:"


def _foundation(item: dict[str, Any], provider: str) -> ModelInfo | None:
    model_id = item.get("modelId")
    if not isinstance(model_id, str):
        return None
    if item.get("responseStreamingSupported") is False:
        return None
    if "TEXT" not in (item.get("outputModalities") or ["TEXT"]):
        return None
    name = item.get("modelName")
    return ModelInfo(
        id=model_id,
        provider=provider,
        display_name=name if isinstance(name, str) else None,
        raw=item,
    )


def _profile(item: dict[str, Any], provider: str) -> ModelInfo | None:
    kind = item.get("type")
    key = "inferenceProfileArn" if kind == "APPLICATION" else "inferenceProfileId"
    model_id = item.get(key) or item.get("inferenceProfileId")
    if not isinstance(model_id, str):
        return None
    name = item.get("inferenceProfileName")
    return ModelInfo(
        id=model_id,
        provider=provider,
        display_name=name if isinstance(name, str) else None,
        raw=item,
    )


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    if isinstance(data, dict) and isinstance(data.get("modelSummaries"), list):
        found = [_foundation(i, provider) for i in data["modelSummaries"] if isinstance(i, dict)]
        return [m for m in found if m is not None], PROFILES
    if isinstance(data, dict) and isinstance(data.get("inferenceProfileSummaries"), list):
        items = data["inferenceProfileSummaries"]
        found = [_profile(i, provider) for i in items if isinstance(i, dict)]
        token = data.get("nextToken")
        nxt = PROFILES + token if isinstance(token, str) and token else None
        return [m for m in found if m is not None], nxt
    raise MalformedStreamError(
        f"the model list answer has neither modelSummaries nor inferenceProfileSummaries: "
        f"{str(data)[:200]}",
        provider=provider,
    )

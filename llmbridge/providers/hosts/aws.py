"""The AWS host: where Bedrock's requests go and how model ids travel (pure, no IO).

Shared by ``bedrock`` (Converse), ``anthropic-bedrock`` (InvokeModel), ``anthropic-bedrock-mantle``,
``anthropic-aws`` and the ``bedrock-mantle`` presets; credentials and region come from
``llmbridge.auth.aws.aws_credential`` (its variable names, ``REGION_VARS`` and
``BEDROCK_KEY_VAR``, are named here too, for the preset table). Rules:

* Hosts per region: ``bedrock-runtime.{region}.amazonaws.com`` (inference),
  ``bedrock.{region}.amazonaws.com`` (control plane: model lists),
  ``bedrock-mantle.{region}.api.aws`` (Mantle: ``/anthropic``, ``/v1``) and
  ``aws-external-anthropic.{region}.api.aws`` (Claude Platform on AWS).
* Model ids come as AWS gives them: foundation ids (``anthropic.claude-…``), cross-region
  inference profiles (a geography ``us.`` / ``eu.`` / ``apac.`` / ``global.`` … + id) and ARNs;
  ``base_id`` is the foundation id (the ARN's last segment, the geography dropped).
  ``CountTokens`` takes a foundation id or an ARN (``counted_model``).
* ``/model/{id}`` (``model_path``): the id is one path segment, percent-encoded as botocore
  encodes a URI label (``LABEL_SAFE``: ``:`` and ``/`` encoded, ``…-v1%3A0``), or as the
  ``anthropic`` SDK's Bedrock client does (``SDK_SAFE``: ``:`` kept); an id that is empty, ``.``
  or ``..`` is refused before sending (``url_paths``: httpx would drop the segment and send the
  signed request to another operation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...auth.aws import BEDROCK_KEY_VAR, REGION_VARS
from ..url_paths import path_segment

__all__ = [
    "BATCH_OPTIONS",
    "BEDROCK_KEY_VAR",
    "LABEL_SAFE",
    "MANTLE_URL",
    "REGION_VARS",
    "SDK_SAFE",
    "base_id",
    "batch_settings",
    "control_url",
    "counted_model",
    "external_anthropic_url",
    "mantle_url",
    "model_path",
    "runtime_url",
]

LABEL_SAFE = "-_.~"
"""What botocore leaves unencoded in a URI label (``bedrock``'s paths)."""
SDK_SAFE = ":;"
"""What the ``anthropic`` SDK leaves unencoded in a Bedrock model id (``anthropic-bedrock``)."""
MANTLE_URL = "https://bedrock-mantle.{region}.api.aws"
"""Mantle's origin; the OpenAI-compatible presets add ``/v1``, Claude ``/anthropic``."""

BATCH_OPTIONS = frozenset({"batch_role_arn", "batch_s3_uri"})
"""Provider options of Bedrock batch inference (``client.batch``'s ``role_arn=`` / ``s3_uri=``)."""

_GEO = re.compile(r"^(?:us|eu|apac|jp|au|ca|us-gov|global)\.")


def runtime_url(region: str) -> str:
    """Bedrock's inference endpoint in ``region``."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"


def control_url(region: str) -> str:
    """Bedrock's control plane in ``region`` (foundation models, inference profiles)."""
    return f"https://bedrock.{region}.amazonaws.com"


def mantle_url(region: str) -> str:
    """Bedrock's Mantle endpoint in ``region`` (no path)."""
    return MANTLE_URL.format(region=region)


def external_anthropic_url(region: str) -> str:
    """Claude Platform on AWS in ``region``."""
    return f"https://aws-external-anthropic.{region}.api.aws"


def batch_settings(options: Mapping[str, Any], **more: Any) -> dict[str, str]:
    """The batch options given (``batch_role_arn`` → ``role_arn``...) and ``more`` set ones."""
    given = {name.removeprefix("batch_"): options.get(name) for name in BATCH_OPTIONS}
    return {k: str(v) for k, v in {**given, **more}.items() if v}


def base_id(model: str) -> str:
    """``us.anthropic.claude-x:0`` / an ARN → ``anthropic.claude-x:0``."""
    if model.startswith("arn:"):
        model = model.rsplit("/", 1)[-1]
    return _GEO.sub("", model)


def counted_model(model: str) -> str:
    """The id ``CountTokens`` takes: an ARN as is, else the foundation id."""
    return model if model.startswith("arn:") else base_id(model)


def model_path(model: str, *, provider: str, safe: str = LABEL_SAFE) -> str:
    """``/model/{modelId}``, the id one encoded path segment (``safe``: see the module rules)."""
    return "/model/" + path_segment(model, provider=provider, what="Bedrock model id", safe=safe)

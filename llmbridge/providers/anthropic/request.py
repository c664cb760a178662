"""``ChatRequest`` → the Messages API request body and headers (pure).

Follows https://platform.claude.com/docs/en/api/messages and the installed ``anthropic`` SDK
(2.x: ``anthropic-version: 2026-10-21``, the key sent as ``Authorization: Bearer``).
Rules:

* ``max_tokens`` is always sent: the caller's, else the model's output cap (raised above a
  thinking budget so the budget fits).
* ``stream: true`` always; ``stop`` → ``stop_sequences``; ``response_format`` →
  ``output_config.format`` (``json_schema``).
* Tools → ``{name, description, input_schema}`` (+ ``strict``); ``tool_choice`` auto / any /
  tool / none; ``parallel_tool_calls=False`` → ``disable_parallel_tool_use``.
* Reasoning: a budget → ``thinking: enabled`` with ``budget_tokens`` (≥ 1024); an effort alone
  → ``thinking: adaptive`` + ``output_config.effort`` on models that take it, else a budget
  derived from the effort; ``include_thoughts=False`` → ``display: "omitted"``.
* API version 2026-10-21 removed ``temperature`` / ``top_p`` / ``top_k`` (a 400 even at their
  defaults): they are dropped with a warning unless an older ``api_version`` is configured.
  ``seed`` and the penalties have no Messages API setting: dropped with a warning.
* The history is first made sendable here (``providers/history.py``): other providers'
  reasoning and items left out with a warning, tool-call ids rewritten to
  ``^[a-zA-Z0-9_-]+$``.
* Provider-run tool specs (``ChatRequest.hosted_tools``) follow the app's tools as server
  tools; a remote MCP server is an ``mcp_servers`` entry plus its ``mcp_toolset`` among those
  tools (``hosted.py``; the connector's beta flag is added to the headers by the provider).
* ``compaction`` (``llmbridge.compaction``) → ``context_management.edits`` with the
  ``compact_20260112`` edit (``compaction.py``; its beta flag is added to the headers by the
  provider, and so it is whenever a compaction block goes back).
* Settings that cannot be honoured become warnings, returned with the body (``MessagesBody``)
  and surfaced on ``StreamStart`` by the attempt loop; so are the beta flags the body needs
  (its MCP connector's, compaction's), for the headers; only an unbuildable request raises. ``extra`` is merged into the body last
  (``extra["tools"]``, e.g. server tools, is appended to the app's tools).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ...request import ChatRequest
from ..history import ANTHROPIC_IDS, adapt_history
from .compaction import compaction_betas, compaction_edit
from .hosted import encode_hosted
from .messages import cache_control, encode_messages, limit_cache_points
from .models import MIN_THINKING_BUDGET, default_max_tokens, effort_budget, supports_adaptive
from .schema import output_schema
from .tools import encode_tool, encode_tool_choice

__all__ = [
    "API_VERSION",
    "COUNT_FIELDS",
    "SAMPLING_REMOVED_FROM",
    "MessagesBody",
    "build_body",
    "build_headers",
    "count_tokens_body",
]

API_VERSION = "2026-10-21"
SAMPLING_REMOVED_FROM = "2026-10-21"
"""First API version that rejects ``temperature`` / ``top_p`` / ``top_k``."""

_EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


def _thinking(req: ChatRequest, body: dict[str, Any], warnings: list[str]) -> int:
    """Set ``thinking`` (and ``output_config.effort``); return the budget in tokens (0: none)."""
    cfg = req.reasoning
    if cfg is None:
        return 0
    thinking: dict[str, Any]
    budget = 0
    if cfg.budget_tokens is not None:
        budget = cfg.budget_tokens
        if budget < MIN_THINKING_BUDGET:
            warnings.append(
                f"thinking budget {budget} raised to the API minimum {MIN_THINKING_BUDGET}"
            )
            budget = MIN_THINKING_BUDGET
        thinking = {"type": "enabled", "budget_tokens": budget}
        if cfg.effort is not None and supports_adaptive(req.model):
            body.setdefault("output_config", {})["effort"] = _EFFORTS[cfg.effort]
    elif cfg.effort is not None and supports_adaptive(req.model):
        thinking = {"type": "adaptive"}
        body.setdefault("output_config", {})["effort"] = _EFFORTS[cfg.effort]
    else:
        budget = effort_budget(cfg.effort or "medium")
        thinking = {"type": "enabled", "budget_tokens": budget}
    if not cfg.include_thoughts:
        thinking["display"] = "omitted"
    body["thinking"] = thinking
    return budget


class MessagesBody(NamedTuple):
    """What ``build_body`` makes of a request."""

    body: dict[str, Any]
    warnings: list[str]
    """The settings that were dropped or changed, one sentence each."""
    betas: list[str]
    """The beta flags the body needs (its MCP connector's, compaction's), for the headers."""


def build_body(req: ChatRequest, *, provider_name: str, api_version: str) -> MessagesBody:
    """The JSON body, its warnings and the beta flags it needs (see the module rules)."""
    betas: list[str] = []
    history = adapt_history(req.messages, provider=provider_name, ids=ANTHROPIC_IDS)
    system, messages, warnings = encode_messages(history.messages, provider_name=provider_name)
    warnings[:0] = history.warnings
    body: dict[str, Any] = {"model": req.model, "messages": messages}
    if system is not None:
        body["system"] = system
    extras: dict[str, Any] = {}
    budget = _thinking(req, extras, warnings)
    if req.max_tokens is not None:
        body["max_tokens"] = req.max_tokens
    else:
        body["max_tokens"] = max(default_max_tokens(req.model), budget + MIN_THINKING_BUDGET)
    body["stream"] = True
    _tools(req, body, warnings, betas)
    if req.compaction is not None:
        edit = compaction_edit(req.compaction, provider_name=provider_name)
        body["context_management"] = {"edits": [edit]}
    if req.stop:
        body["stop_sequences"] = list(req.stop)
    _sampling(req, body, warnings, api_version=api_version)
    if "thinking" in extras:
        body["thinking"] = extras["thinking"]
    output_config = _output_config(req, dict(extras.get("output_config", {})), warnings)
    if output_config:
        body["output_config"] = output_config
    blocks: list[dict[str, Any]] = list(body.get("tools", []))  # prompt order: tools first
    if isinstance(system, list):
        blocks.extend(system)
    blocks.extend(b for m in messages for b in m["content"])
    limit_cache_points(blocks, warnings)
    for name, value in req.extra.items():
        if name == "tools" and isinstance(value, list) and "tools" in body:
            body["tools"] = [*body["tools"], *value]  # server tools next to the app's tools
        else:
            body[name] = value
    betas.extend(compaction_betas(req, provider_name=provider_name))
    return MessagesBody(body, warnings, betas)


def _tools(req: ChatRequest, body: dict[str, Any], warnings: list[str], betas: list[str]) -> None:
    """The app's tools (native unless the prompt carries them), then the provider-run ones."""
    if req.tools and req.tool_mode != "prompt":
        body["tools"] = [encode_tool(t) for t in req.tools]
        if req.tools_cache_point is not None:
            body["tools"][-1]["cache_control"] = cache_control(req.tools_cache_point)
        choice = encode_tool_choice(req.tool_choice, parallel=req.parallel_tool_calls)
        if choice is not None:
            body["tool_choice"] = choice
    if req.hosted_tools:  # provider-run tools (hosted.py) after the app's
        hosted = encode_hosted(req.hosted_tools)
        warnings.extend(hosted.warnings)
        betas.extend(hosted.betas)
        if hosted.tools:
            body["tools"] = [*body.get("tools", []), *hosted.tools]
        if hosted.mcp_servers:
            body["mcp_servers"] = hosted.mcp_servers


def _sampling(
    req: ChatRequest, body: dict[str, Any], warnings: list[str], *, api_version: str
) -> None:
    """Sampling settings, sent or dropped with a warning (see the module rules)."""
    sampling = {"temperature": req.temperature, "top_p": req.top_p, "top_k": req.top_k}
    for name, value in sampling.items():
        if value is None:
            continue
        if api_version >= SAMPLING_REMOVED_FROM:
            warnings.append(
                f"{name} was dropped: anthropic-version {api_version} does not accept it"
            )
        else:
            body[name] = value
    for name in ("seed", "presence_penalty", "frequency_penalty"):
        if getattr(req, name) is not None:
            warnings.append(f"{name} was dropped: the Messages API has no such setting")


def _output_config(
    req: ChatRequest, output_config: dict[str, Any], warnings: list[str]
) -> dict[str, Any]:
    """``output_config`` with the response format's schema (any JSON object: Anthropic has no
    schema-less JSON mode; the prompt asks for it)."""
    if req.response_format is not None and not req.response_format.any_object:
        schema, moved = output_schema(req.response_format.json_schema)
        output_config["format"] = {"type": "json_schema", "schema": schema}
        if moved:
            warnings.append(
                "response_format: keywords structured outputs cannot enforce were moved into "
                f"descriptions ({'; '.join(moved)}); llmbridge validates the reply against them"
            )
    return output_config


COUNT_FIELDS = frozenset(
    {"model", "messages", "system", "tools", "tool_choice", "thinking", "output_config",
     "mcp_servers", "context_management"}
)  # fmt: skip
"""What ``/v1/messages/count_tokens`` takes of a Messages body (no sampling, no limits)."""


def count_tokens_body(req: ChatRequest, *, provider_name: str, api_version: str) -> dict[str, Any]:
    """The ``/v1/messages/count_tokens`` body: the Messages body ``build_body`` makes, less
    what only shapes the answer (``stream``, ``max_tokens``, sampling, stop sequences)."""
    body = build_body(req, provider_name=provider_name, api_version=api_version).body
    return {k: v for k, v in body.items() if k in COUNT_FIELDS}


def build_headers(
    *,
    key: str | None,
    api_version: str | None,
    auth: str,
    betas: list[str],
    extra: Mapping[str, str],
) -> dict[str, str]:
    """The Messages API headers. ``key=None``: no key header (an ``httpx.Auth`` or a cloud's
    own header carries the credential); ``api_version=None``: no ``anthropic-version`` header
    (Bedrock and Vertex take the version in the body)."""
    headers = {"accept": "text/event-stream", "content-type": "application/json"}
    if api_version is not None:
        headers["anthropic-version"] = api_version
    if key is None:
        pass
    elif auth == "x-api-key":
        headers["x-api-key"] = key
    else:
        headers["authorization"] = f"Bearer {key}"
    for name, value in extra.items():
        if name.lower() == "anthropic-beta":
            betas = [*betas, *(b.strip() for b in value.split(",") if b.strip())]
        else:
            headers[name.lower()] = value
    if betas:
        headers["anthropic-beta"] = ",".join(dict.fromkeys(betas))
    return headers

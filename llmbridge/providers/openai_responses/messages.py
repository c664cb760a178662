"""ChatMessages → Responses API ``instructions`` and ``input`` items (pure).

Follows https://platform.openai.com/docs/api-reference/responses/create (``input`` item list).

Rules:

* Leading system messages become ``instructions`` (joined by a blank line); a system message
  later in the conversation stays in place as a ``system`` message item.
* User content is ``input_text`` / ``input_image`` (``detail: "auto"``); earlier assistant text
  is an assistant ``message`` whose ``content`` is the text (the SDK's
  ``EasyInputMessageParam``: its ``output_text`` form, ``ResponseOutputMessageParam``, needs the
  item ``id`` and ``status`` of a stored response, which a stateless or foreign turn lacks).
  Text with a ``phase`` (``TextPart.phase``: ``commentary`` / ``final_answer``, from a
  Responses message) is a message item of its own carrying that ``phase``, as OpenAI asks for
  its phased (codex) models; a phase the API does not know is left out.
* Tool calls are ``function_call`` items (``call_id``, ``name``, ``arguments`` as the raw string
  the model wrote, or the parsed arguments re-serialized when the call was flagged as
  malformed, so the API gets valid JSON); tool results are ``function_call_output`` items (a string, or a list of
  ``input_text`` / ``input_image`` when images are present).
* Custom (freeform) tool calls (``ToolCallPart.provider_data["custom"]``, from either OpenAI
  API) are ``custom_tool_call`` items (``call_id``, ``name``, ``input`` = the raw text, else
  ``arguments["input"]``); the results answering them are ``custom_tool_call_output`` items
  (same ``output`` shapes as ``function_call_output``). A result is matched to its call by
  ``tool_call_id`` among the calls earlier in ``messages``.
* Reasoning goes back only when it came from this provider (``ReasoningPart.provider ==
  "openai-responses"``) and is usable without server state: with ``encrypted_content``, or by
  id when the caller stores responses (``store: true``). Other providers' reasoning is dropped.
* ``RawPart(provider="openai-responses")`` (built-in tool items of an earlier response,
  ``compaction`` items, the decoder's ``ProviderItem`` events) goes back verbatim, in its place
  among the turn's items; so does one in a user or tool turn (the app's ``tool_search_output``
  answering a client tool search), after its tool results; raw parts of other providers are
  dropped.
* A function call's ``namespace`` (``provider_data``, a function a tool search loaded) goes
  back on its ``function_call`` item.
* Output item ids (``fc_...``) go back only when the turn's reasoning item went back too: the
  API rejects a function call id whose reasoning item is missing.
* An ``ApprovalResponse`` part (the app's answer to an MCP approval request) is an
  ``mcp_approval_response`` item, after the turn's tool results (``hosted.py``).
* ``DocumentPart`` → ``input_file`` (``file_data`` + ``filename``, or ``file_url``), in user
  content and in function outputs. ``AudioPart`` is an ``UnsupportedFeatureError``: the SDK's
  message content types hold no audio. A ``CachePoint`` in user content marks the part before
  it with ``prompt_cache_breakpoint``; ``instructions`` is a string and cannot carry one.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedFeatureError
from ...messages import ChatMessage
from ...parts import (
    ApprovalResponse,
    AudioPart,
    CachePoint,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from ...tool_calls import arguments_text
from ..openai import cache_breakpoint, custom_input, document_name, is_custom_call
from .hosted import approval_item

__all__ = ["PROVIDER_NAME", "encode_messages"]

PROVIDER_NAME = "openai-responses"
_PHASES = frozenset({"commentary", "final_answer"})
"""The ``phase`` values the API takes (``EasyInputMessageParam.phase``)."""


def _image(part: ImagePart) -> dict[str, Any]:
    return {"type": "input_image", "image_url": part.data_url, "detail": "auto"}


def _file(part: DocumentPart) -> dict[str, Any]:
    if part.url is not None and not part.url.startswith("data:"):
        return {"type": "input_file", "file_url": part.url}
    return {"type": "input_file", "file_data": part.data_url, "filename": document_name(part)}


def _media(part: ImagePart | DocumentPart) -> dict[str, Any]:
    return _file(part) if isinstance(part, DocumentPart) else _image(part)


def _user_content(msg: ChatMessage) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for part in msg.content:
        if isinstance(part, TextPart):
            content.append({"type": "input_text", "text": part.text})
        elif isinstance(part, ImagePart | DocumentPart):
            content.append(_media(part))
        elif isinstance(part, CachePoint):
            if content:
                content[-1]["prompt_cache_breakpoint"] = cache_breakpoint(part)
        elif isinstance(part, AudioPart):
            raise UnsupportedFeatureError(
                "the Responses API takes no audio in messages (its input content is text, "
                "images and files): use the 'openai' provider (Chat Completions) with an "
                "audio model",
                provider=PROVIDER_NAME,
            )
    return content


def _reasoning_item(part: ReasoningPart, *, store: bool) -> dict[str, Any] | None:
    data = part.provider_data or {}
    if part.provider != PROVIDER_NAME or not isinstance(data.get("id"), str):
        return None
    encrypted = data.get("encrypted_content")
    if not encrypted and not store:
        return None  # with store: false the server cannot look the item up by id
    summary = [{"type": "summary_text", "text": part.text}] if part.text else []
    item: dict[str, Any] = {"type": "reasoning", "id": data["id"], "summary": summary}
    if encrypted:
        item["encrypted_content"] = encrypted
    return item


def _function_call(part: ToolCallPart, *, with_id: bool) -> dict[str, Any]:
    item: dict[str, Any]
    if is_custom_call(part):
        item = {
            "type": "custom_tool_call",
            "call_id": part.id,
            "name": part.name,
            "input": custom_input(part),
        }
    else:
        arguments = part.raw_arguments
        if arguments is None or part.error is not None:
            arguments = arguments_text(part.arguments)
        item = {
            "type": "function_call",
            "call_id": part.id,
            "name": part.name,
            "arguments": arguments,
        }
        namespace = (part.provider_data or {}).get("namespace")
        if isinstance(namespace, str):
            item["namespace"] = namespace
    item_id = (part.provider_data or {}).get("item_id")
    if with_id and isinstance(item_id, str):
        item["id"] = item_id
    return item


def _assistant_items(msg: ChatMessage, *, store: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    reasoning_sent = store
    text: list[str] = []
    phase: str | None = None

    def flush_text() -> None:
        if text:
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": "".join(text),
            }
            if phase is not None:
                item["phase"] = phase
            items.append(item)
            text.clear()

    for part in msg.content:
        if isinstance(part, TextPart):
            if part.phase != phase:  # each phase is a message item of its own
                flush_text()
                phase = part.phase if part.phase in _PHASES else None
            text.append(part.text)
            continue
        flush_text()
        if isinstance(part, ReasoningPart):
            item = _reasoning_item(part, store=store)
            if item is not None:
                items.append(item)
                reasoning_sent = True
        elif isinstance(part, ToolCallPart):
            items.append(_function_call(part, with_id=reasoning_sent))
        elif isinstance(part, RawPart) and part.provider == PROVIDER_NAME:
            items.append(part.data)
    flush_text()
    return items


def _tool_output(part: ToolResultPart, custom: set[str]) -> dict[str, Any]:
    output: str | list[dict[str, Any]]
    if any(isinstance(p, ImagePart | DocumentPart) for p in part.content):
        output = [
            {"type": "input_text", "text": p.text} if isinstance(p, TextPart) else _media(p)
            for p in part.content
        ]
    else:
        output = part.text
    kind = "custom_tool_call_output" if part.tool_call_id in custom else "function_call_output"
    return {"type": kind, "call_id": part.tool_call_id, "output": output}


def encode_messages(
    messages: list[ChatMessage], *, store: bool
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(instructions, input items)`` for ``messages``."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    leading = True
    custom: set[str] = set()  # ids of the custom tool calls so far
    for msg in messages:
        if msg.role == "system":
            if leading:
                instructions.append(msg.text)
            else:
                content = [{"type": "input_text", "text": msg.text}]
                items.append({"type": "message", "role": "system", "content": content})
            continue
        leading = False
        if msg.role == "assistant":
            items.extend(_assistant_items(msg, store=store))
            custom.update(p.id for p in msg.tool_calls if is_custom_call(p))
            continue
        # user and tool turns: tool results first (they answer the previous calls), then content
        items.extend(_tool_output(p, custom) for p in msg.tool_results)
        answers = [approval_item(p) for p in msg.content if isinstance(p, ApprovalResponse)]
        answers.extend(
            p.data for p in msg.content if isinstance(p, RawPart) and p.provider == PROVIDER_NAME
        )
        items.extend(answers)
        content = _user_content(msg)
        if content or (msg.role == "user" and not msg.tool_results and not answers):
            items.append({"type": "message", "role": "user", "content": content})
    return ("\n\n".join(instructions) if instructions else None), items

"""What the browser sends, read in: ``useChat`` bodies (``ai_sdk.to_messages``) and AG-UI
``RunAgentInput`` (``ag_ui.to_messages``) become ``ChatMessage``s that continue the
conversation; malformed input is a ``UsageError`` naming where, never a raw error."""

from __future__ import annotations

import base64
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.ui import ag_ui, ai_sdk

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def _ui(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"id": "m", "role": role, "parts": list(parts)}


def test_use_chat_body_with_a_file_and_a_tool_step() -> None:
    body = {
        "messages": [
            _ui("system", {"type": "text", "text": "Be brief."}),
            _ui(
                "user",
                {"type": "text", "text": "What is this?"},
                {"type": "file", "mediaType": "image/png", "url": PNG_URL},
                {
                    "type": "file",
                    "mediaType": "application/pdf",
                    "url": "https://x.test/a.pdf",
                    "filename": "a.pdf",
                },
            ),
            _ui(
                "assistant",
                {"type": "step-start"},
                {
                    "type": "reasoning",
                    "text": "Look it up.",
                    "providerMetadata": {"llmbridge": {"signature": "sig"}},
                },
                {
                    "type": "tool-lookup",
                    "toolCallId": "c1",
                    "state": "output-available",
                    "input": {"q": "png"},
                    "output": {"kind": "image"},
                    "callProviderMetadata": {"llmbridge": {"raw_arguments": '{"q": "png"}'}},
                },
                {
                    "type": "dynamic-tool",
                    "toolName": "fail",
                    "toolCallId": "c2",
                    "state": "output-error",
                    "input": {},
                    "errorText": "boom",
                },
                {"type": "tool-half", "toolCallId": "c3", "state": "input-streaming"},
                {"type": "step-start"},
                {"type": "source-url", "sourceId": "s", "url": "https://x.test"},
                {"type": "text", "text": "A tiny PNG."},
            ),
        ]
    }
    system, user, call, result1, result2, answer = ai_sdk.to_messages(body)
    assert system == lb.ChatMessage.system("Be brief.")
    image, document = user.content[1], user.content[2]
    assert isinstance(image, lb.ImagePart) and image.data == PNG
    assert isinstance(document, lb.DocumentPart) and document.url == "https://x.test/a.pdf"
    assert document.name == "a.pdf"
    assert call.reasoning == "Look it up." and call.content[0].signature == "sig"  # type: ignore[union-attr]
    assert [(c.id, c.name, c.arguments) for c in call.tool_calls] == [
        ("c1", "lookup", {"q": "png"}),
        ("c2", "fail", {}),
    ]
    assert call.tool_calls[0].raw_arguments == '{"q": "png"}'
    assert result1.tool_results[0].text == '{"kind":"image"}'
    assert result2.tool_results[0].is_error and result2.tool_results[0].text == "boom"
    assert answer == lb.ChatMessage.assistant("A tiny PNG.")


def test_provider_items_come_back_as_raw_parts() -> None:
    item = {"provider": "anthropic", "data": {"type": "server_tool_use", "id": "s1"}}
    body = {
        "messages": [
            _ui(
                "assistant",
                {"type": "data-llmbridge-item", "data": item},
                {"type": "text", "text": "Done."},
            )
        ]
    }
    (message,) = ai_sdk.to_messages(body)
    assert message.content[0] == lb.RawPart(provider="anthropic", data=item["data"])


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ([], "body"),
        ({"messages": "hi"}, "body.messages"),
        ({"messages": [{"role": "user"}]}, "messages[0]"),
        ({"messages": [_ui("robot")]}, "messages[0].role"),
        ({"messages": [_ui("user", {"text": "no type"})]}, "messages[0].parts[0]"),
        (
            {"messages": [_ui("user", {"type": "file", "url": "data:image/png;base64,@@"})]},
            "messages[0].parts[0]",
        ),
        (
            {"messages": [_ui("assistant", {"type": "tool-x", "state": "output-available"})]},
            "messages[0].parts[0]",
        ),
    ],
)
def test_bad_use_chat_bodies_are_usage_errors(body: Any, where: str) -> None:
    with pytest.raises(lb.UsageError) as info:
        ai_sdk.to_messages(body)
    assert info.value.message.startswith(where)


def test_run_agent_input() -> None:
    run_input = {
        "threadId": "t",
        "runId": "r",
        "messages": [
            {"id": "1", "role": "developer", "content": "Be brief."},
            {
                "id": "2",
                "role": "user",
                "content": [
                    {"type": "text", "text": "And this?"},
                    {
                        "type": "image",
                        "source": {
                            "type": "data",
                            "value": base64.b64encode(PNG).decode(),
                            "mimeType": "image/png",
                        },
                    },
                ],
            },
            {"id": "3", "role": "reasoning", "content": "Check.", "encryptedValue": "sig"},
            {
                "id": "4",
                "role": "assistant",
                "content": "Looking.",
                "toolCalls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": 1}'},
                    },
                    {"id": "c2", "type": "function", "function": {"name": "bad", "arguments": "{"}},
                ],
            },
            {"id": "5", "role": "tool", "toolCallId": "c1", "content": "found"},
            {"id": "6", "role": "tool", "toolCallId": "c2", "content": "", "error": "bad args"},
            {"id": "7", "role": "activity", "activityType": "x", "content": {}},
        ],
    }
    system, user, assistant, found, failed = ag_ui.to_messages(run_input)
    assert system == lb.ChatMessage.system("Be brief.")
    assert isinstance(user.content[1], lb.ImagePart) and user.content[1].data == PNG
    assert assistant.reasoning == "Check." and assistant.text == "Looking."
    good, bad = assistant.tool_calls
    assert (good.name, good.arguments, good.error) == ("lookup", {"q": 1}, None)
    assert bad.arguments == {} and bad.raw_arguments == "{" and bad.error
    assert found.tool_results[0].name == "lookup" and found.tool_results[0].text == "found"
    assert failed.tool_results[0].is_error and failed.tool_results[0].text == "bad args"


@pytest.mark.parametrize(
    ("run_input", "where"),
    [
        ({"threadId": "t"}, "run_input"),
        (
            {"messages": [{"id": "1", "role": "tool", "toolCallId": "nope", "content": "x"}]},
            "messages[0].toolCallId",
        ),
        ({"messages": [{"id": "1", "role": "wizard"}]}, "messages[0].role"),
        (
            {
                "messages": [
                    {
                        "id": "1",
                        "role": "user",
                        "content": [
                            {"type": "image", "source": {"type": "file", "value": "file-1"}}
                        ],
                    }
                ]
            },
            "messages[0].content[0].source.type",
        ),
    ],
)
def test_bad_run_agent_input_is_a_usage_error(run_input: Any, where: str) -> None:
    with pytest.raises(lb.UsageError) as info:
        ag_ui.to_messages(run_input)
    assert info.value.message.startswith(where)


def test_importing_llmbridge_ui_loads_no_protocol_and_no_starlette() -> None:
    import subprocess
    import sys

    code = (
        "import sys, llmbridge.ui; "
        "print(sorted(m for m in sys.modules if m.startswith(('starlette', 'llmbridge.ui.ai_sdk', 'llmbridge.ui.ag_ui'))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"

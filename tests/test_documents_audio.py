"""Documents and audio in messages: each API's native shape (checked against the official SDKs'
request types), or a clear ``UnsupportedFeatureError`` before anything is sent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

import llmbridge as lb
from llmbridge.errors import UnsupportedFeatureError
from llmbridge.providers import ProviderConfig, create_provider

PDF = lb.DocumentPart(data=b"%PDF-1.7 tiny", media_type="application/pdf", name="report.pdf")
NOTES = lb.DocumentPart(data=b"Meeting at 10.", media_type="text/plain")
LINKED = lb.DocumentPart(url="https://example.com/paper.pdf")
WAV = lb.AudioPart(data=b"RIFF....WAVE", media_type="audio/wav")


def body(provider: str, *parts: Any) -> dict[str, Any]:
    config = ProviderConfig.from_mapping({"api_key": "k"})
    request = lb.ChatRequest(model="m-1", messages=[lb.ChatMessage.user("Summarise.", *parts)])
    json = create_provider(provider, config).build_request(request).json
    assert json is not None
    return json


def test_an_image_part_with_a_document_type_points_to_document_part() -> None:
    with pytest.raises(ValidationError, match="use DocumentPart"):
        lb.ImagePart(data=b"%PDF", media_type="application/pdf")
    with pytest.raises(ValidationError, match="needs media_type"):
        lb.DocumentPart(data=b"%PDF")


def test_anthropic_document_blocks() -> None:
    content = body("anthropic", PDF, NOTES, LINKED)["messages"][0]["content"]
    assert content[1] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF.base64_data},
        "title": "report.pdf",
    }
    assert content[2]["source"] == {
        "type": "text",
        "media_type": "text/plain",
        "data": "Meeting at 10.",
    }
    assert content[3]["source"] == {"type": "url", "url": "https://example.com/paper.pdf"}
    params = pytest.importorskip("anthropic.types")
    for block in content[1:]:
        TypeAdapter(params.DocumentBlockParam).validate_python(block)


def test_anthropic_refuses_audio_and_other_document_types() -> None:
    with pytest.raises(UnsupportedFeatureError, match="no audio"):
        body("anthropic", WAV)
    sheet = lb.DocumentPart(data=b"a,b", media_type="text/csv")
    with pytest.raises(UnsupportedFeatureError, match="PDF and plain-text"):
        body("anthropic", sheet)


def test_openai_chat_file_and_input_audio_parts() -> None:
    content = body("openai", PDF, WAV)["messages"][0]["content"]
    assert content[1] == {
        "type": "file",
        "file": {"file_data": PDF.data_url, "filename": "report.pdf"},
    }
    assert content[2] == {
        "type": "input_audio",
        "input_audio": {"data": WAV.base64_data, "format": "wav"},
    }
    params = pytest.importorskip("openai.types.chat")
    for part in content:
        TypeAdapter(params.ChatCompletionContentPartParam).validate_python(part)
    with pytest.raises(UnsupportedFeatureError, match="not by URL"):
        body("openai", LINKED)
    with pytest.raises(UnsupportedFeatureError, match="WAV or MP3"):
        body("openai", lb.AudioPart(data=b"OggS", media_type="audio/ogg"))


def test_openai_chat_documents_in_tool_results_follow_as_a_user_message() -> None:
    config = ProviderConfig.from_mapping({"api_key": "k"})
    call = lb.ToolCallPart(id="call_1", name="fetch_report", arguments={})
    messages = [
        lb.ChatMessage.user("Get the report."),
        lb.ChatMessage.assistant(tool_calls=[call]),
        lb.ChatMessage.tool_result("call_1", [lb.TextPart(text="attached"), PDF]),
    ]
    request = lb.ChatRequest(model="gpt-4.1", messages=messages)
    sent = create_provider("openai", config).build_request(request).json
    assert sent is not None
    tool, follow = sent["messages"][2:]
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": "attached"}
    assert follow["role"] == "user" and follow["content"][0]["type"] == "file"


def test_responses_input_file_and_no_audio() -> None:
    content = body("openai-responses", PDF, LINKED)["input"][0]["content"]
    assert content[1] == {"type": "input_file", "file_data": PDF.data_url, "filename": "report.pdf"}
    assert content[2] == {"type": "input_file", "file_url": "https://example.com/paper.pdf"}
    params = pytest.importorskip("openai.types.responses")
    TypeAdapter(params.ResponseInputMessageContentListParam).validate_python(content)
    with pytest.raises(UnsupportedFeatureError, match="no audio"):
        body("openai-responses", WAV)


def test_gemini_inline_and_file_data_by_mime_type() -> None:
    parts = body("gemini", PDF, LINKED, WAV)["contents"][0]["parts"]
    assert parts[1] == {"inlineData": {"mimeType": "application/pdf", "data": PDF.base64_data}}
    assert parts[2] == {
        "fileData": {"fileUri": "https://example.com/paper.pdf", "mimeType": "application/pdf"}
    }
    assert parts[3] == {"inlineData": {"mimeType": "audio/wav", "data": WAV.base64_data}}


def test_parts_round_trip_through_json() -> None:
    message = lb.ChatMessage.user("x", PDF, WAV)
    again = lb.ChatMessage.model_validate_json(message.model_dump_json())
    assert again == message


FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"


def test_the_recorded_requests_are_what_the_sdks_type() -> None:
    import json

    anthropic = json.loads((FIXTURES / "anthropic/document_cache_point/request.json").read_text())
    params = pytest.importorskip("anthropic.types")
    TypeAdapter(list[params.MessageParam]).validate_python(anthropic["body"]["messages"])
    TypeAdapter(list[params.TextBlockParam]).validate_python(anthropic["body"]["system"])
    chat = json.loads((FIXTURES / "openai/document_audio_seed/request.json").read_text())
    chat_types = pytest.importorskip("openai.types.chat")
    TypeAdapter(list[chat_types.ChatCompletionMessageParam]).validate_python(
        chat["body"]["messages"]
    )
    create = pytest.importorskip("openai.types.chat.completion_create_params")
    assert chat["body"].keys() <= create.CompletionCreateParamsStreaming.__annotations__.keys()

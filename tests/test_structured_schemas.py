"""The schema each provider is sent for a typed ``response_format``, checked against what the
official SDKs send for the same type (openai's ``.parse()`` strict schema, anthropic's
``transform_schema``), and the warnings that say what had to change."""

from __future__ import annotations

import datetime
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

import llmbridge as lb
from llmbridge.providers.anthropic.schema import output_schema
from llmbridge.providers.openai.tools import response_schema, response_schema_warning
from llmbridge.structured import response_format_of


class Address(BaseModel):
    street: str
    city: str = Field(description="City name")


class Pet(BaseModel):
    kind: Literal["dog", "cat"]
    name: str = Field(min_length=1, max_length=40)
    age: int = Field(ge=0, le=40)


class Person(BaseModel):
    """Someone with an address and pets."""

    name: str
    born: datetime.date
    nickname: str | None = None
    home: Address
    work: Address | None = None
    pets: list[Pet] = Field(min_length=1)
    tags: list[str] = []
    score: float = Field(default=0.5, multiple_of=0.5)
    code: str = Field(pattern=r"^[A-Z]{3}$")


class Plain(BaseModel):
    a: int
    b: str


MODELS = [Plain, Address, Pet, Person]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_openai_strict_schema_is_the_openai_sdks(model: type[BaseModel]) -> None:
    to_strict = pytest.importorskip("openai.lib._pydantic").to_strict_json_schema
    assert response_schema(response_format_of(model)) == to_strict(model)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_anthropic_output_schema_is_the_anthropic_sdks(model: type[BaseModel]) -> None:
    transform = pytest.importorskip("anthropic.lib._parse._transform").transform_schema
    ours, _ = output_schema(model.model_json_schema())
    assert ours == transform(model)


def test_anthropic_says_which_keywords_it_moved_into_descriptions() -> None:
    _, moved = output_schema(Person.model_json_schema())
    assert "$.$defs.Pet.name: maxLength, minLength" in moved
    assert "$.$defs.Pet.age: maximum, minimum" in moved
    assert "$.code: pattern" in moved
    _, none = output_schema(Plain.model_json_schema())
    assert none == []


def test_openai_says_which_optional_properties_became_required() -> None:
    warning = response_schema_warning(response_format_of(Person))
    assert warning is not None and "nickname, work, tags, score" in warning
    assert "required (" in warning  # a typed format: not made nullable
    assert response_schema_warning(response_format_of(Plain)) is None
    plain = lb.ResponseFormat(
        schema={"type": "object", "properties": {"a": {"type": "integer"}}}, name="p"
    )
    sent = response_schema(plain)
    assert sent["properties"]["a"] == {"type": ["integer", "null"]}  # still optional
    assert "required and nullable" in (response_schema_warning(plain) or "")


def test_a_typed_reply_to_the_strict_schema_validates() -> None:
    """Required-but-not-nullable is what a model class can take back (a default field does
    not accept null)."""
    schema: dict[str, Any] = response_schema(response_format_of(Person))
    assert schema["properties"]["score"] == {
        "default": 0.5,
        "multipleOf": 0.5,
        "title": "Score",
        "type": "number",
    }
    reply = {
        "name": "Ana",
        "born": "1990-01-02",
        "nickname": None,
        "home": {"street": "Rua 1", "city": "Porto"},
        "work": None,
        "pets": [{"kind": "cat", "name": "Mia", "age": 3}],
        "tags": [],
        "score": 1.0,
        "code": "ABC",
    }
    assert Person.model_validate(reply).pets[0].name == "Mia"


def test_gemini_says_which_keywords_its_schema_dialect_dropped() -> None:
    from llmbridge.providers.gemini.request import build_body

    request = lb.Client().build_request("gemini-2.5-flash", [lb.ChatMessage.user("x")])
    typed = request.model_copy(update={"response_format": response_format_of(Person)})
    (warning,) = build_body(typed, provider="gemini").warnings
    assert "has no multipleOf;" in warning
    assert (
        build_body(typed, provider="gemini", json_schema=True).warnings == []
    )  # full JSON Schema: nothing dropped
    plain = request.model_copy(update={"response_format": response_format_of(Plain)})
    assert build_body(plain, provider="gemini").warnings == []


class Inventory(BaseModel):
    shop: str
    counts: dict[str, int]


def test_a_dict_field_cannot_be_strict_so_it_is_sent_non_strict_with_a_warning() -> None:
    from llmbridge.providers.openai.tools import encode_response_format

    fmt = response_format_of(Inventory)
    sent = encode_response_format(fmt=fmt, json_schema=True)["json_schema"]
    assert sent["strict"] is False
    assert sent["schema"]["properties"]["counts"]["additionalProperties"] == {"type": "integer"}
    assert "open maps (dict fields at $.counts)" in (response_schema_warning(fmt) or "")
    reply = Inventory.model_validate_json('{"shop": "A", "counts": {"pears": 3}}')
    assert reply.counts == {"pears": 3}  # what the non-strict schema lets the model say

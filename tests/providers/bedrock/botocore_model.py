"""botocore's own ``bedrock-runtime`` service model as the judge of the requests we build.

``check(url, body, operation)``: our JSON body is turned into botocore's parameters (the same
camelCase names; a blob, which the JSON carries base64, back to bytes, failing on bad base64),
validated by botocore's ``ParamValidator`` on the operation's input shape, then serialized by
botocore's own REST-JSON serializer: its body must equal ours and its path our URL's path.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest

botocore_session = pytest.importorskip("botocore.session")
from botocore.serialize import create_serializer  # noqa: E402
from botocore.validate import ParamValidator  # noqa: E402

_model = botocore_session.get_session().get_service_model("bedrock-runtime")


def _params(shape: Any, value: Any) -> Any:
    kind = shape.type_name
    if kind == "blob" and isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if kind == "structure" and isinstance(value, dict):
        members = shape.members
        return {k: _params(members[k], v) if k in members else v for k, v in value.items()}
    if kind == "list" and isinstance(value, list):
        return [_params(shape.member, v) for v in value]
    if kind == "map" and isinstance(value, dict):
        return {k: _params(shape.value, v) for k, v in value.items()}
    return value


def check(
    url: str, body: dict[str, Any], *, model_id: str, operation: str = "ConverseStream"
) -> dict[str, Any]:
    """Validate ``body`` for ``operation`` on ``model_id``; return botocore's parameters."""
    op = _model.operation_model(operation)
    params = _params(op.input_shape, {"modelId": model_id, **body})
    report = ParamValidator().validate(params, op.input_shape)
    assert not report.has_errors(), report.generate_report()
    request = create_serializer("rest-json", include_validation=False).serialize_to_request(
        params, op
    )
    assert orjson.loads(request["body"]) == body
    assert url.endswith(request["url_path"]), (url, request["url_path"])
    return params

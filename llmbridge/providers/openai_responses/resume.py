"""Responses background mode: the requests that resume and cancel a response, and the decoder
that knows where its stream stands (pure, no IO).

Follows https://platform.openai.com/docs/guides/background and
https://platform.openai.com/docs/api-reference/responses/get.

Rules:

* A background response (``background: true``, which needs ``store: true``) keeps running on
  the server after the connection that created it drops. ``GET /responses/{id}?stream=true``
  streams its events again, after event ``n`` with ``starting_after=n`` (the query the openai
  SDK's ``responses.retrieve(id, stream=True, starting_after=n)`` sends: ``starting_after``
  first, no body); ``POST /responses/{id}/cancel`` stops it (the SDK's
  ``responses.cancel(id)``). Both carry the provider's auth and headers.
* Every event of a Responses stream carries ``sequence_number``, counting from 0 on
  ``response.created``. ``BackgroundDecoder`` keeps the last one and the response id (from
  ``response.created`` or ``response.queued``: a resumed stream may start with either, or
  anywhere) and drops an event whose number is not above the last one's (a server that sends
  it again), so the app sees each event once however many times the stream is resumed. An
  event without a number passes (an older server); a stream whose events came without numbers
  cannot be resumed (``resume_point`` is ``None``: a resume from the start would repeat them).
* Once the response id is known, an event that carries a ``response`` with another id (a
  resume answered with another response's events) is a ``MalformedStreamError``, checked
  before the number (the other response's ``response.created`` carries number 0, which the
  drop of repeats would otherwise hide); the decoder then refuses further input. Its events
  are never merged into this response's. So is a response id that is a dot segment (``.``,
  ``..``: the resume and cancel requests would go to another path; ``url_paths``).
* It parses each event once and hands it to ``ResponsesDecoder``: the ordinary (non-background)
  decoder pays nothing for this.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...errors import MalformedStreamError
from ...events import StreamEvent, StreamStart
from ..base import HttpRequest, ResumePoint
from ..url_paths import is_dot_segment, path_segment
from .decode import ResponsesDecoder
from .messages import PROVIDER_NAME
from .shapes import str_or_none

__all__ = ["BackgroundDecoder", "cancel_request", "resume_request"]

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


def _segment(response_id: str) -> str:
    return path_segment(response_id, provider=PROVIDER_NAME, what="response id")


def resume_request(
    *, base_url: str, headers: dict[str, str], response_id: str, after: int | None
) -> HttpRequest:
    """``GET {base_url}/responses/{id}?starting_after={after}&stream=true``."""
    query = "stream=true" if after is None else f"starting_after={after}&stream=true"
    url = f"{base_url}/responses/{_segment(response_id)}?{query}"
    return HttpRequest(method="GET", url=url, headers=headers, json=None)


def cancel_request(*, base_url: str, headers: dict[str, str], response_id: str) -> HttpRequest:
    """``POST {base_url}/responses/{id}/cancel`` (no body)."""
    url = f"{base_url}/responses/{_segment(response_id)}/cancel"
    return HttpRequest(method="POST", url=url, headers=headers, json=None)


class BackgroundDecoder(ResponsesDecoder):
    """A ``ResponsesDecoder`` that knows where its stream stands (see the module rules)."""

    def __init__(
        self,
        *,
        response_id: str | None = None,
        after: int | None = None,
    ) -> None:
        super().__init__()
        self.response_id = response_id
        """The response's id: given (``Client.resume``) or read from its first events."""
        self.after = after
        """The number of the last event decoded (``None``: none yet)."""

    def resume_point(self) -> ResumePoint | None:
        if self.response_id is None or (self.after is None and self._started):
            return None  # events came without numbers: resuming would repeat them
        return ResumePoint(
            self.response_id, self.after, complete=self._done and self._error is None
        )

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._done:
            return super().feed(event, data)  # refuses, or ignores what follows the end
        try:
            obj = _loads(data)
        except _JSONDecodeError:
            return super().feed(event, data)  # skipped or refused as the decoder does
        if obj.__class__ is dict:
            response = obj.get("response")
            if response.__class__ is dict and self.response_id is not None:
                self._same_response(response)  # before the number: another's starts at 0
            number = obj.get("sequence_number")
            if number.__class__ is int:
                if self.after is not None and number <= self.after:
                    return []  # sent again by a resumed stream: decoded already
                self.after = number
            if self.response_id is None:
                self._read_id(obj)
        return self._decode(obj, data)

    def _same_response(self, response: dict[str, Any]) -> None:
        """Refuse an event of another response (a resume answered with someone else's)."""
        other = response.get("id")
        if other is not None and other != self.response_id:
            raise self._fail(
                f"the stream of response {self.response_id} sent an event of another response "
                f"({str(other)[:80]!r}): its events are not this response's"
            )

    def _read_id(self, obj: dict[str, Any]) -> None:
        response = obj.get("response")
        if isinstance(response, dict):
            self.response_id = str_or_none(response.get("id"))
            if self.response_id is not None and is_dot_segment(self.response_id):
                raise self._fail(  # resuming would request another URL path
                    f"the response id {self.response_id!r} cannot be resumed or cancelled"
                )

    def _fail(self, message: str) -> MalformedStreamError:
        self._error = error = MalformedStreamError(message, provider=PROVIDER_NAME)
        self._done = True
        return error

    def _start(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        super()._start(obj, out)
        start = out[-1]
        if isinstance(start, StreamStart) and start.response_id is None:
            start.response_id = self.response_id  # a resumed stream may start anywhere

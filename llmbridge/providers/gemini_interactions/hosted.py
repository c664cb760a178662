"""The typed views of what an interaction's built-in tools and outputs made (pure).

Follows ``google.genai`` Interactions ``URLCitation`` (a ``text`` content's ``annotations``, or
a ``text_annotation_delta``), ``CodeExecutionCallStep`` / ``CodeExecutionResultStep`` and
``ImageContent``. Rules:

* a ``url_citation`` annotation → one ``Citation`` (``url``, ``title``; the cited text is the
  ``start_index:end_index`` slice of the step's text when both are given), once per
  (url, cited text) in a stream;
* a ``code_execution_result`` step → ``CodeOutput`` (``result`` is stdout, or stderr when
  ``is_error``; ``code`` the ``arguments.code`` of the call step before it);
* an ``image`` content or step with base64 ``data`` → ``GeneratedImage``.

The steps themselves are ``ProviderItem``s (``decode.py``); these events come after them.
"""

from __future__ import annotations

from typing import Any

from ...events import Citation, CodeOutput, GeneratedImage, StreamEvent

__all__ = ["StepViews"]


class StepViews:
    """Typed events of one stream's built-in steps (remembers the code last run, the citations
    given)."""

    __slots__ = ("_cited", "_code")

    def __init__(self) -> None:
        self._code: str | None = None
        self._cited: set[tuple[str, str | None]] = set()

    def citations(self, annotations: Any, text: str, out: list[StreamEvent]) -> None:
        for note in annotations if isinstance(annotations, list) else ():
            if not isinstance(note, dict) or note.get("type") != "url_citation":
                continue
            url = note.get("url")
            if not isinstance(url, str):
                continue
            start, end = note.get("start_index"), note.get("end_index")
            cited = text[start:end] if type(start) is int and type(end) is int else None
            if (url, cited) in self._cited:
                continue
            self._cited.add((url, cited or None))
            title = note.get("title")
            out.append(Citation(url, title if isinstance(title, str) else None, cited or None))

    def step(self, step: dict[str, Any], out: list[StreamEvent]) -> None:
        """The typed events of a finished built-in ``step`` (besides its ``ProviderItem``)."""
        kind = step.get("type")
        if kind == "code_execution_call":
            arguments = step.get("arguments")
            code = arguments.get("code") if isinstance(arguments, dict) else None
            self._code = code if isinstance(code, str) else None
        elif kind == "code_execution_result":
            result = step.get("result")
            text = result if isinstance(result, str) else ""
            code, self._code = self._code, None
            if step.get("is_error") is True:
                out.append(CodeOutput(stderr=text, code=code))
            else:
                out.append(CodeOutput(stdout=text, code=code))
        elif kind == "image":
            image(step, out)


def image(content: dict[str, Any], out: list[StreamEvent]) -> None:
    data, mime = content.get("data"), content.get("mime_type")
    if isinstance(data, str) and data and isinstance(mime, str) and mime.startswith("image/"):
        out.append(GeneratedImage(b64=data, media_type=mime))

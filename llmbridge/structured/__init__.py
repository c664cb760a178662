"""Structured output: ``response_format=`` in, a validated value (and partial values) out.

=====================  ==============================================================
``formats.py``         what ``response_format=`` accepts (``response_format_of``) and the
                       validated value of a reply (``parse_response``)
``prompt.py``          the prompt mode: the schema written into the system prompt
                       (``plan_format``; through ``llmbridge.prompt_tools``'s front door)
``partial_json.py``    the best-effort value of JSON text still arriving (linear cost)
``partial_stream.py``  ``PartialObject`` events and ``ToolCallChunk.partial_arguments``
=====================  ==============================================================

Floors: these stand on the request models, the events and the provider protocol; the client
pipeline (``llmbridge.client``) and the tool loop call them, never the other way round.
"""

from .formats import parse_response, response_format_of

__all__ = ["parse_response", "response_format_of"]

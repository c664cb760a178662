"""The request pipeline, top floor: from ``Client.stream(...)`` down to the provider's request.

A request walks down once, and nothing here is imported back from below:

=====================  ==============================================================
``async_client.py``    ``Client``: providers resolved once, options checked, the walk starts
``model_chain.py``     a list of models: each tried in turn (the client hands itself down)
``pipeline.py``        one request's plan (provider-run tools, ``llmbridge.structured``'s
                       prompt mode, ``llmbridge.prompt_tools``'s front door) → wire request →
                       ``llmbridge.stream``
``queries.py``         the calls that are not streams: token counts, model lists
``tool_options.py``    what ``tools=`` accepts, turned into ``ToolSpec``s
``event_stream.py``    ``EventStream``: what ``stream()`` returns
=====================  ==============================================================

Above it: ``llmbridge.sync`` (``SyncClient``, the blocking twin, a thin shell over ``Client``).
Below it: plans (``llmbridge.prompt_tools``, ``llmbridge.structured``) → the provider's request
(``llmbridge.providers``) → IO (``llmbridge.stream``) → the provider's decoder → events
(``llmbridge.events``) → the accumulator (``llmbridge.response``). ``python -m
tests.import_graph`` shows the floors; ``tests/test_import_graph.py`` fails on an arrow back up.
"""

from ..model_refs import ModelRef, Models
from .async_client import Client
from .event_stream import EventStream

__all__ = ["Client", "EventStream", "ModelRef", "Models"]

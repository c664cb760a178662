"""Claude wherever it is sold: one Anthropic encoder and decoder, one request builder per cloud.

``base.py`` holds what they share (the Anthropic provider's body encoder, header builder,
decoder and errors); each cloud module says only where the request goes, how its body differs
and which credential it carries (``credentials.py``). Bedrock's frames reach the Anthropic
decoder through ``bedrock_stream.py``. Registered prefixes: ``anthropic-bedrock``,
``anthropic-vertex``, ``anthropic-foundry``, ``anthropic-aws``, ``anthropic-google-cloud``,
``anthropic-bedrock-mantle``. Modules load on first use.
"""

from __future__ import annotations

__all__: list[str] = []

"""The clouds that host several providers' wire formats: each host's pieces written once.

A host module holds what every provider served there shares, whatever its wire format: its
URLs, how model ids go into paths, its error vocabulary. Credentials are ``llmbridge.auth``'s
job (an ``httpx.Auth`` and the precedence that picks it); provider folders import both, and
neither imports a provider. Rules:

* ``aws``: Bedrock's runtime, control and Mantle hosts, Claude Platform on AWS, model ids
  (inference-profile geographies, ARNs) and ``/model/{id}`` paths; ``aws_errors``: the AWS error
  table (``x-amzn-ErrorType``, exception frames). Credentials and region:
  ``llmbridge.auth.aws.aws_credential``. Used by ``bedrock``, ``anthropic-bedrock``,
  ``anthropic-bedrock-mantle``, ``anthropic-aws`` and the ``bedrock-mantle`` presets.
* ``google``: Vertex AI's hosts and location; credentials and project:
  ``llmbridge.auth.google.google_credential``. Used by ``vertex``, ``anthropic-vertex`` and
  ``anthropic-google-cloud``.
* ``azure``: the resource hosts of Azure OpenAI and Microsoft Foundry;
  a key or an Entra ID token, never both: ``llmbridge.auth.key_or_auth``. Used by the ``azure``
  presets and ``anthropic-foundry``.
"""

from __future__ import annotations

__all__: list[str] = []

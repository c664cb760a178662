"""Elicitation and roots: what a server may ask the person (``ElicitationRequest`` →
``ElicitationAnswer``) and which roots (folders) the client offers it.

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

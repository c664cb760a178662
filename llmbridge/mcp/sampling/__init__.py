"""Sampling: answering a server's ``sampling/createMessage`` with one of the app's models, within
the app's ``MCPSamplingPolicy`` (context grants, messages, model choice).

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

"""Resources: the values (``MCPResource``, templates, contents, tool outputs), the resource
requests of one connection and resource subscriptions.

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

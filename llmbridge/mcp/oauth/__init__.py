"""OAuth for remote MCP servers: the authorization flow (``MCPOAuth``), token stores, the terminal
/ browser authorize hooks and the scrubbing of the SDK's auth logs.

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

"""One MCP session: connecting over stdio, streamable HTTP or SSE, the ``MCPConnection`` and its
``MCPTool``s, HTTP auth, the server's processes, paging, progress and logs, and the client-side
callbacks a session is given.

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

"""The multi-server hub: the ``mcpServers`` config, one supervised ``MCPServer`` per entry, and
``MCPServers`` / ``connect_mcp_servers`` (one ``ToolRegistry`` over them all, tool names,
refresh, the catalog of resources and prompts, the sync twin).

Rules: the public names are exported by ``llmbridge.mcp``; this package exports nothing itself.
"""

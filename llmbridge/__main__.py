from llmbridge.cli import entry

entry()

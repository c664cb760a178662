"""``python -m llmbridge``: the command line (``llmbridge.cli``), as the ``llmbridge`` script runs it."""

from llmbridge.cli import entry

entry()

import sys

from llmbridge.cli import main

sys.exit(main())

from llmbridge.cli import main
import sys

sys.exit(main())

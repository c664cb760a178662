"""The package version, read by hatch at build time and by ``llmbridge.__version__``."""

__version__ = "0.1.0"

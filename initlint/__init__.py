"""initlint: a linter for weight-initialisation bugs in PyTorch model code."""

__version__ = "0.1.0"

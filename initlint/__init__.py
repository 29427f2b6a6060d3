"""initlint: a linter for weight-initialisation bugs in PyTorch model code."""

__version__ = "0.2.0"

"""Exceptions that cross layers: raised low (files, config, parser, analysis), caught high
(the CLI, the engine, explain, fixes). A leaf module, so that raising one never imports the
module that catches it."""

from __future__ import annotations


class UsageError(Exception):
    """A problem with how initlint was called: one line, exit code 2."""


class UnparseableSource(Exception):
    """The source cannot be parsed within initlint's bounds: one INI901 at (line, column)."""

    def __init__(self, reason: str, line: int = 1, column: int = 1) -> None:
        super().__init__(reason)
        self.reason, self.line, self.column = reason, line, column


class StepBudgetExceeded(Exception):
    """The file needs more interpretation steps than a linter should spend on it; the analysis
    catches it and treats what it was interpreting as uncertain. (Not to be confused with
    `guard.BudgetExceeded`, the time budget of a whole file, which no analysis code catches.)"""

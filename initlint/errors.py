"""Exceptions that cross layers: raised low (files, config, parser, guard, analysis), caught high
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


class TimeBudgetExceeded(BaseException):
    """The work on one file ran past its time budget (`initlint.guard`).

    A BaseException, so that `except Exception` blocks in the analysis cannot swallow it.
    """

    def __init__(self, budget_s: float | None = None) -> None:
        # The backstop raises the bare class inside the worker: no budget known there.
        super().__init__("ran past its time budget" if budget_s is None else f"ran past its {budget_s:g} s time budget")
        self.budget_s = budget_s


class StepBudgetExceeded(Exception):
    """The file needs more interpretation steps than a linter should spend on it; the analysis
    catches it and treats what it was interpreting as uncertain."""

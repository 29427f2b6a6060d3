"""The exit status of a run: 0 nothing found (or `--exit-zero`), 1 findings, 2 a usage or
configuration error, or no file could be checked at all."""

from __future__ import annotations

from typing import Sequence

from initlint.findings import Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def exit_code(findings: Sequence[Finding], nothing_checked: bool, exit_zero: bool) -> int:
    if exit_zero:
        return EXIT_CLEAN
    if nothing_checked:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN

"""`--fix` and `--diff`: fixes applied to files and notebooks, or shown as a unified diff."""

from __future__ import annotations

import difflib
import sys
from typing import Sequence

from initlint.files import UsageError
from initlint.findings import Finding


def _fixer():
    """`initlint.fixes`, or a one-line error when this build has no fixes."""
    try:
        from initlint import fixes
    except ModuleNotFoundError as error:
        if error.name != "initlint.fixes":
            raise
        raise UsageError("--fix is not available in this build (initlint.fixes is missing)") from None
    return fixes


def _report_fixes(report, verb: str = "fixed") -> None:
    """One stderr line per outcome of `--fix` (`initlint.fixes.FixReport`)."""
    if report.error:
        print(f"initlint: error: --fix: {report.error}", file=sys.stderr)
    for path, reason in report.skipped:
        print(f"initlint: warning: --fix: {path}: {reason}", file=sys.stderr)
    if report.fixed:
        count, files = report.fixes_applied, len(report.fixed)
        print(
            f"initlint: {verb} {count} finding{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )


def _split_notebooks(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    from initlint.files import NOTEBOOK_SUFFIX

    notebooks = [finding for finding in findings if finding.path.endswith(NOTEBOOK_SUFFIX)]
    return [finding for finding in findings if not finding.path.endswith(NOTEBOOK_SUFFIX)], notebooks


def apply_fixes(findings: Sequence[Finding], unsafe: bool) -> None:
    fixes = _fixer()
    plain, notebooks = _split_notebooks(findings)
    _report_fixes(fixes.apply_fixes(plain, unsafe=unsafe))
    if notebooks:
        from initlint.notebook import apply_notebook_fixes

        _report_fixes(apply_notebook_fixes(notebooks, unsafe=unsafe)[0])


def print_diff(findings: Sequence[Finding], unsafe: bool, sources: dict[str, str]) -> bool:
    """`--diff`: every fix as a unified diff on stdout, nothing written; True if any."""
    fixes = _fixer()
    plain, notebooks = _split_notebooks(findings)
    on_disk = [finding for finding in plain if finding.path not in sources]
    report, previews = fixes.preview_fixes(on_disk, unsafe=unsafe)
    previews += _stdin_previews([f for f in plain if f.path in sources], unsafe, sources)
    if notebooks:
        from initlint.notebook import apply_notebook_fixes

        notebook_report, notebook_previews = apply_notebook_fixes(notebooks, unsafe=unsafe, write=False)
        report.skipped += notebook_report.skipped
        report.fixed.update(notebook_report.fixed)
        previews += notebook_previews
    for path, old, new in previews:
        sys.stdout.writelines(
            difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}")
        )
    _report_fixes(report, verb="would fix")
    return bool(previews)


def _stdin_previews(findings: list[Finding], unsafe: bool, sources: dict[str, str]) -> list[tuple[str, str, str]]:
    from initlint.fixes import _apply, _overlapping

    previews = []
    for path, source in sources.items():
        edits = sorted(
            (
                edit
                for finding in findings
                if finding.path == path and finding.fix and (finding.fix.safe or unsafe)
                for edit in finding.fix.edits
            ),
            key=lambda e: (e.line, e.column, e.end_line, e.end_column),
        )
        if edits and not _overlapping(edits):
            previews.append((path, source, _apply(source, edits)))
    return previews

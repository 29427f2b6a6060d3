"""Findings printed: in the chosen `--format`, in color on a terminal, with `--statistics`."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from initlint.findings import Finding
from initlint.reporters import ReportOptions, render
from initlint.reporters import statistics as statistics_report
from initlint.safety import write_text


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()


def print_findings(
    findings: list[Finding], args: argparse.Namespace, files_checked: int, sources: dict[str, str]
) -> None:
    options = ReportOptions(
        show_source=args.show_source and not args.quiet,
        color=_use_color(args.color, sys.stdout),
        summary=not args.quiet,
        files_checked=files_checked,
        unsafe_fixes=args.unsafe_fixes,
        sources=sources,
    )
    write_text(sys.stdout, render(args.format, findings, options))
    if args.statistics:
        # Machine-readable formats keep stdout parseable: the table goes to stderr.
        stream = sys.stdout if args.format == "text" else sys.stderr
        write_text(stream, statistics_report.render(findings))

"""Reporters: findings in, text out. One module per `--format`, plus `--statistics`.

Every reporter is `render(findings, options) -> str`; the CLI prints the result. Keeping them
pure (no printing, no exit codes) lets the tests compare output byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Sequence

from initlint.findings import Finding

FORMATS = ("text", "json", "sarif", "github")


@dataclass(frozen=True)
class ReportOptions:
    #: text: show the source line and a caret under each finding.
    show_source: bool = True
    #: text: ANSI colours (the CLI decides: a TTY and no NO_COLOR, or --color always).
    color: bool = False
    #: text: the closing "Found N findings" line.
    summary: bool = True
    files_checked: int = 0


def render(format_name: str, findings: Sequence[Finding], options: ReportOptions = ReportOptions()) -> str:
    if format_name not in FORMATS:
        raise ValueError(f"unknown format {format_name!r}")
    module = import_module(f"{__name__}.{format_name}")
    return module.render(findings, options)

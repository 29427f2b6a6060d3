"""Reporters: findings in, text out. One module per `--format`, plus `--statistics`.

Every reporter is `render(findings, options) -> str`; the CLI prints the result. Keeping them
pure (no printing, no exit codes) lets the tests compare output byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Mapping, Sequence

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
    #: `--unsafe-fixes`: unsafe fixes count as applicable (marked `[*]`, not hinted at).
    unsafe_fixes: bool = False
    #: Sources not on disk (stdin), by the path they are reported under.
    sources: Mapping[str, str] = field(default_factory=dict)


#: Where each rule's documentation is published; a rule's anchor is appended (see `rule_url`).
RULES_DOC_URL = "https://github.com/initlint/initlint/blob/main/docs/rules.md"


def rule_url(code: str) -> str | None:
    """The rule's section in docs/rules.md (GitHub's heading anchor), None for unknown codes."""
    from initlint.rules import rule_by_code

    rule = rule_by_code(code)
    return None if rule is None else f"{RULES_DOC_URL}#{rule.code.lower()}-{rule.name}"


def fix_applicable(finding: Finding, unsafe_fixes: bool) -> bool:
    """Would `--fix` (with `unsafe_fixes` as given) apply this finding's fix?"""
    return finding.fix is not None and (finding.fix.safe or unsafe_fixes)


def location(finding: Finding) -> str:
    """`path:line:col`, or `nb.ipynb:cell 3:12:5` in a notebook (line counted in the cell)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.column}"


def evidence_location(finding: Finding, step) -> str:
    """Where one evidence step is: its own file, or the finding's (and the finding's cell)."""
    path = step.path or finding.path
    cell = step.cell if step.cell is not None else (finding.cell if step.path is None else None)
    return f"{path}:{f'cell {cell}:' if cell is not None else ''}{step.line}:{step.column}"


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut at a space (never inside a name) with `...`."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 3)
    if cut <= 0:  # one long name: whole is better than cut
        return text
    return text[:cut].rstrip(" ,;:(") + "..."


def render(format_name: str, findings: Sequence[Finding], options: ReportOptions = ReportOptions()) -> str:
    if format_name not in FORMATS:
        raise ValueError(f"unknown format {format_name!r}")
    module = import_module(f"{__name__}.{format_name}")
    return module.render(findings, options)

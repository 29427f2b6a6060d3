"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding.

The title carries the code and the headline (what the pull-request view shows folded); the body
repeats the headline and adds the evidence, the help and the doc link, one per line.
"""

from __future__ import annotations

from typing import Sequence

from initlint.findings import Finding
from initlint.reporters import evidence_location, rule_url, shorten

_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}
#: GitHub folds longer titles; the full headline is in the body anyway.
TITLE_CHARS = 120


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0].strip()


def body(finding: Finding) -> str:
    lines = [f"{finding.code} {finding.message}"]
    lines += [f"--> {evidence_location(finding, step)}: {step.message}" for step in finding.evidence]
    if finding.help:
        lines.append(f"help: {finding.help}")
    url = rule_url(finding.code)
    if url and (finding.evidence or finding.help):
        lines.append(f"docs: {url}")
    return "\n".join(lines)


def annotation(finding: Finding) -> str:
    properties = {
        "file": finding.path,
        "line": finding.line,
        "col": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column if finding.end_line == finding.line else None,
        "title": shorten(f"{finding.code} {_first_line(finding.message)}", TITLE_CHARS),
    }
    if finding.cell is not None:
        # Lines count within a notebook cell, not in the .ipynb JSON GitHub would point into:
        # annotate the file and say where in the title.
        where = f"cell {finding.cell}:{finding.line}:{finding.column}"
        properties = {
            "file": finding.path,
            "title": shorten(f"{finding.code} ({where}) {finding.message}", TITLE_CHARS),
        }
    fields = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{_LEVEL.get(finding.severity, 'warning')} {fields}::{_escape_data(body(finding))}"


def render(findings: Sequence[Finding], options) -> str:
    return "".join(annotation(finding) + "\n" for finding in findings)

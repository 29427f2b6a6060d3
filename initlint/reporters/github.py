"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding."""

from __future__ import annotations

from typing import Sequence

from initlint.findings import Finding

_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = {
        "file": finding.path,
        "line": finding.line,
        "col": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column if finding.end_line == finding.line else None,
        "title": f"{finding.code} {finding.name}",
    }
    fields = ",".join(f"{key}={_escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{_LEVEL.get(finding.severity, 'warning')} {fields}::{_escape_data(f'{finding.code} {finding.message}')}"


def render(findings: Sequence[Finding], options) -> str:
    return "".join(annotation(finding) + "\n" for finding in findings)

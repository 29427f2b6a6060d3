"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Every rule is listed in `tool.driver.rules` (id, name, descriptions, help from the rule docs,
default level and whether it is on by default), so `ruleIndex` is stable across runs. Paths are
relative to the working directory through the `%SRCROOT%` base; columns count code points.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import quote

from initlint import __version__
from initlint.findings import Finding
from initlint.reporters import rule_url

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _first_paragraph(docs: str, heading: str = "## What it does") -> str:
    """The paragraph under `heading` in a rule's docs, joined into one line."""
    text = docs.split(heading, 1)[-1].strip()
    return " ".join(text.split("\n\n", 1)[0].split())


def _rule_descriptor(rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(rule.docs)},
        "help": {"text": rule.docs.strip(), "markdown": rule.documentation()},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": _LEVEL.get(rule.severity, "warning"), "enabled": rule.default_enabled},
        "properties": {"tags": ["pytorch", "initialization"]},
    }


def _artifact_location(path: str, cwd: Path) -> dict[str, Any]:
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(cwd)
    except ValueError:
        return {"uri": absolute.as_uri()}
    # os.fsencode: a name with undecodable bytes is percent-encoded byte for byte.
    return {"uri": quote(os.fsencode(relative.as_posix())), "uriBaseId": SRCROOT}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    region = {"startLine": line, "startColumn": column}
    if (end_line, end_column) > (line, column):
        region.update(endLine=end_line, endColumn=end_column)
    return region


def _result(finding: Finding, rule_index: dict[str, int], cwd: Path) -> dict[str, Any]:
    location = _artifact_location(finding.path, cwd)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _LEVEL.get(finding.severity, "warning"),
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": location,
                    "region": _region(finding.line, finding.column, finding.end_line, finding.end_column),
                }
            }
        ],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.evidence:
        result["relatedLocations"] = [
            _related(finding, index, step, cwd) for index, step in enumerate(finding.evidence)
        ]
    if finding.help:
        result["properties"] = {"help": finding.help}
    if finding.cell is not None:
        # Lines (the fix's too) count within the notebook's code cell.
        result.setdefault("properties", {})["cell"] = finding.cell
    if finding.fix is not None:
        result["fixes"] = [
            {
                "description": {"text": finding.fix.description},
                "artifactChanges": [
                    {
                        "artifactLocation": location,
                        "replacements": [
                            {
                                "deletedRegion": _region(edit.line, edit.column, edit.end_line, edit.end_column),
                                "insertedContent": {"text": edit.text},
                            }
                            for edit in finding.fix.edits
                        ],
                    }
                ],
            }
        ]
    return result


def _related(finding: Finding, index: int, step, cwd: Path) -> dict[str, Any]:
    location: dict[str, Any] = {
        "id": index,
        "physicalLocation": {
            "artifactLocation": _artifact_location(step.path or finding.path, cwd),
            "region": _region(step.line, step.column, step.line, step.column),
        },
        "message": {"text": step.message},
    }
    cell = step.cell if step.cell is not None else (finding.cell if step.path is None else None)
    if cell is not None:
        location["properties"] = {"cell": cell}
    return location


def sarif_log(findings: Sequence[Finding], cwd: Path | None = None) -> dict[str, Any]:
    from initlint.rules import all_rules

    cwd = Path(os.path.abspath(cwd or os.curdir))
    rules = all_rules()
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "initlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule_descriptor(rule) for rule in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": cwd.as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": True}],
                "results": [_result(finding, rule_index, cwd) for finding in findings],
            }
        ],
    }


def render(findings: Sequence[Finding], options) -> str:
    return json.dumps(sarif_log(findings), indent=2) + "\n"

"""One engine behind the CLI and the flake8 plugin: source text in, findings out.

Pipeline: source -> LibCST module -> `analysis.analyze` (index, residual writers,
init plan) -> enabled rules -> positioned findings -> `# noqa` filter.
"""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import libcst as cst

from initlint import noqa
from initlint.config import Settings, is_enabled
from initlint.findings import Finding
# The text pre-filter lives apart so the flake8 plugin can use it before importing LibCST.
from initlint.prefilter import TEXT_MARKERS, might_define_model  # noqa: F401 (re-exported)
from initlint.rules import Rule, Violation, all_rules, rule_by_code


def enabled_rules(settings: Settings, path: str = "") -> list[type[Rule]]:
    return [rule for rule in all_rules() if is_enabled(rule.code, rule.default_enabled, settings, path)]


def tool_finding(code: str, path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    rule = rule_by_code(code)
    assert rule is not None, code
    return Finding(
        code=rule.code,
        name=rule.name,
        message=message,
        path=path,
        line=line,
        column=column,
        end_line=line,
        end_column=column,
        severity=rule.severity,
    )


def parse(source: str) -> cst.Module:
    return cst.parse_module(source)


def _position(positions, node: cst.CSTNode) -> tuple[int, int, int, int]:
    code_range = positions[node]
    return (
        code_range.start.line,
        code_range.start.column + 1,
        code_range.end.line,
        code_range.end.column + 1,
    )


def check_module(module: cst.Module, path: str, settings: Settings) -> list[Finding]:
    """Run the analysis and every enabled rule over an already parsed module."""
    from initlint.analysis import analyze

    rules = [rule for rule in enabled_rules(settings, path) if not rule.emitted_by_engine]
    if not rules:
        return []
    analysis = analyze(module, settings.analysis)
    raised: list[tuple[type[Rule], Violation]] = []
    for rule in rules:
        raised.extend((rule, violation) for violation in rule().check(analysis))
    if not raised:
        return []
    # Positions are only computed for files that have something to report.
    positions = analysis.positions()
    findings = {}
    for rule, violation in raised:
        line, column, end_line, end_column = _position(positions, violation.node)
        finding = Finding(
            code=rule.code,
            name=rule.name,
            message=violation.message,
            path=path,
            line=line,
            column=column,
            end_line=end_line,
            end_column=end_column,
            severity=rule.severity,
            details=violation.details,
        )
        findings.setdefault((finding.code, line, column, finding.message), finding)
    return sorted(findings.values(), key=Finding.sort_key)


def lint_source(source: str, path: str = "<stdin>", settings: Settings | None = None) -> list[Finding]:
    settings = settings or Settings()
    if not might_define_model(source):
        return []
    return finish(check_source(source, path, settings), source, path, settings)


def finish(findings: list[Finding], source: str, path: str, settings: Settings) -> list[Finding]:
    """Selection (per-file-ignores included) for tool findings too, then `# noqa`."""
    findings = [finding for finding in findings if _code_enabled(finding.code, settings, path)]
    if settings.ignore_noqa:
        return findings
    return noqa.filter_findings(findings, source, path, settings)


def _code_enabled(code: str, settings: Settings, path: str) -> bool:
    rule = rule_by_code(code)
    return is_enabled(code, rule.default_enabled if rule else True, settings, path)


def check_source(source: str, path: str, settings: Settings) -> list[Finding]:
    """Parse and check; no noqa filtering (the flake8 plugin leaves that to flake8)."""
    try:
        module = parse(source)
    except cst.ParserSyntaxError as error:
        return [tool_finding("INI901", path, f"cannot parse: {error.message}", error.raw_line or 1, error.raw_column + 1)]
    return check_module(module, path, settings)


def decode(data: bytes) -> str:
    """Decode like Python does: PEP 263 cookie or BOM, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def lint_file(path: str | os.PathLike, settings: Settings | None = None) -> list[Finding]:
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        return [tool_finding("INI901", name, f"cannot read: {error.strerror or error}")]
    try:
        source = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return [tool_finding("INI901", name, f"cannot decode: {error}")]
    return lint_source(source, name, settings)


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0


def lint_files(files: Iterable[str], settings: Settings | None = None) -> RunResult:
    result = RunResult()
    for name in files:
        result.files_checked += 1
        result.findings.extend(lint_file(name, settings))
    result.findings.sort(key=Finding.sort_key)
    return result

"""Every static rule's good and bad examples (tests/fixtures/rules/<code>/), run through the real
engine (as Fixit does). A bad example marks each line that must be reported with
`# expect: INInnn`; what the user reads (headline, evidence, help) is compared with the example's
`.findings.txt` snapshot, reviewed like ruff's snapshots. After a deliberate change in wording,
rewrite the snapshots with `INITLINT_UPDATE_SNAPSHOTS=1` and review the diff."""

from __future__ import annotations

import os
import re
from pathlib import Path

import libcst as cst
import pytest

from initlint.config import Settings
from initlint.engine import lint_source
from initlint.findings import Finding
from initlint.rules import all_rules
from expectations import expected_findings
from expectations import reported as reported_by

STATIC_RULES = [rule for rule in all_rules() if not rule.emitted_by_engine]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HEADLINE_LIMIT = 100


def examples_of(code: str) -> list[Path]:
    return sorted((FIXTURES / code).glob("*.py"))


def reported(source: str, code: str) -> list[tuple[int, str]]:
    return reported_by(source, (code,))


CASES = [
    pytest.param(rule, path, id=f"{rule.code}-{path.stem}") for rule in STATIC_RULES for path in examples_of(rule.code)
]
BAD_CASES = [case for case in CASES if case.values[1].name.startswith("bad_")]


def render(findings: list[Finding]) -> str:
    """Findings as the snapshot shows them: headline, then each evidence step, then the help."""
    lines = []
    for finding in findings:
        lines.append(f"{finding.line}: {finding.code} {finding.message}")
        lines.extend(f"  --> {step.line}: {step.message}" for step in finding.evidence)
        if finding.help:
            lines.append(f"  = help: {finding.help}")
    return "\n".join(lines) + "\n"


def test_every_static_rule_has_examples_of_both_kinds():
    for rule in STATIC_RULES:
        names = [path.name for path in examples_of(rule.code)]
        assert any(name.startswith("good_") for name in names), f"{rule.code} has no good example"
        assert any(name.startswith("bad_") for name in names), f"{rule.code} has no bad example"


@pytest.mark.parametrize("rule, path", CASES)
def test_rule_example(rule, path):
    source = path.read_text()
    cst.parse_module(source)  # every example is valid Python
    expected = [(line, code) for line, code in expected_findings(source) if code == rule.code]
    if path.name.startswith("good_"):
        assert not expected, "a good example must not carry expectations"
    else:
        assert expected, "a bad example must mark at least one line with `# expect:`"
    assert reported(source, rule.code) == expected


@pytest.mark.parametrize("rule, path", BAD_CASES)
def test_bad_example_reads_as_its_snapshot(rule, path):
    findings = [f for f in lint_source(path.read_text(), path.name, Settings(select=(rule.code,)))]
    snapshot = path.with_suffix(".findings.txt")
    if os.environ.get("INITLINT_UPDATE_SNAPSHOTS"):
        snapshot.write_text(render(findings))
    assert render(findings) == snapshot.read_text()


def test_examples_of_one_rule_do_not_trigger_other_rules_unexpectedly():
    for rule in STATIC_RULES:
        for path in examples_of(rule.code):
            source = path.read_text()
            everything = sorted((f.line, f.code) for f in lint_source(source, "example.py", Settings(select=("INI0",))))
            assert everything == expected_findings(source), path.name


@pytest.mark.parametrize("path", [*FIXTURES.rglob("bad_*.py"), *EXAMPLES.glob("*.py")], ids=lambda path: path.name)
def test_headlines_fit_and_carry_evidence_and_help(path):
    for finding in lint_source(path.read_text(), path.name, Settings(select=("INI0",))):
        assert len(finding.message) <= HEADLINE_LIMIT, finding.message
        assert not finding.message.endswith("..."), finding.message
        assert finding.evidence and finding.help, finding.message
        assert all(step.line >= 1 for step in finding.evidence)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_documentation_has_every_section(rule):
    doc = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in doc, f"{rule.code} docs lack {section}"
    assert re.fullmatch(r"INI\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)

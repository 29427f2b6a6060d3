"""Every rule's own good and bad examples, run through the real engine (as Fixit does)."""

from __future__ import annotations

import re

import libcst as cst
import pytest

from initlint.config import Settings
from initlint.engine import lint_source
from initlint.rules import all_rules
from expectations import expected_findings
from expectations import reported as reported_by

STATIC_RULES = [rule for rule in all_rules() if not rule.emitted_by_engine]


def reported(source: str, code: str) -> list[tuple[int, str]]:
    return reported_by(source, (code,))


CASES = [
    pytest.param(rule, kind, i, source, id=f"{rule.code}-{kind}-{i}")
    for rule in STATIC_RULES
    for kind, examples in (("good", rule.good_examples), ("bad", rule.bad_examples))
    for i, source in enumerate(examples)
]


def test_every_static_rule_has_examples_of_both_kinds():
    for rule in STATIC_RULES:
        assert rule.good_examples, f"{rule.code} has no good example"
        assert rule.bad_examples, f"{rule.code} has no bad example"


@pytest.mark.parametrize("rule, kind, index, source", CASES)
def test_rule_example(rule, kind, index, source):
    cst.parse_module(source)  # every example is valid Python
    expected = [(line, code) for line, code in expected_findings(source) if code == rule.code]
    if kind == "good":
        assert not expected, "a good example must not carry expectations"
    else:
        assert expected, "a bad example must mark at least one line with `# expect:`"
    assert reported(source, rule.code) == expected


def test_examples_of_one_rule_do_not_trigger_other_rules_unexpectedly():
    for rule in STATIC_RULES:
        for source in rule.good_examples + rule.bad_examples:
            everything = sorted((f.line, f.code) for f in lint_source(source, "example.py", Settings(select=("INI0",))))
            assert everything == expected_findings(source), rule.code


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_documentation_has_every_section(rule):
    doc = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in doc, f"{rule.code} docs lack {section}"
    assert re.fullmatch(r"INI\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)

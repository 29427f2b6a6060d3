"""The leaf modules every layer reads: the code table, finding constructors, source text."""

from __future__ import annotations

import re

import pytest

from initlint import codes
from initlint.engine import decode
from initlint.errors import StepBudgetExceeded
from initlint.findings import new_finding, tool_finding
from initlint.rules import all_rules, rule_by_code
from initlint.rules.base import Rule
from initlint.sourcetext import error_text, one_line, physical_lines


def test_every_code_has_one_rule_and_every_rule_its_row():
    rules = {rule.code: rule for rule in all_rules()}
    assert list(rules) == list(codes.CODES), "one rule module per code, in code order"
    for code, row in codes.CODES.items():
        rule = rules[code]
        assert (rule.name, rule.summary, rule.severity, rule.default_enabled) == (
            row.name,
            row.summary,
            row.severity,
            row.default_enabled,
        )
        assert rule.emitted_by_engine == (row.producer != "static"), code


def test_codes_and_names_have_the_shapes_users_type():
    names = [row.name for row in codes.CODES.values()]
    assert len(set(names)) == len(names)
    for code, row in codes.CODES.items():
        assert re.fullmatch(r"INI[0-9]{3}", code) and row.code == code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", row.name), row.name
        producer = {"0": "static", "1": "runtime", "9": "tool"}[code[3]]
        assert row.producer == producer, code


def test_lookup_by_code_or_name_in_any_case():
    assert codes.find(" ini904 ") is codes.CODES["INI904"]
    assert codes.find("Blanket-Noqa") is codes.CODES["INI903"]
    assert codes.find("INI999") is None and codes.find("no-such-rule") is None
    assert rule_by_code("unused-noqa") is rule_by_code("INI904") is not None
    with pytest.raises(codes.UnknownCode):
        codes.code_info("INI999")
    assert codes.default_enabled("INI903") is False and codes.default_enabled("INI001") is True
    assert codes.default_enabled("E501") is True, "codes outside the table are never dropped by selection"


def test_a_rule_that_contradicts_the_table_is_refused_at_definition():
    with pytest.raises(TypeError, match=r"Contrary\.severity = 'error' disagrees with initlint/codes.py \('warning'\)"):

        class Contrary(Rule):
            code = "INI904"
            severity = "error"
            docs = ""

    with pytest.raises(codes.UnknownCode):

        class Unlisted(Rule):
            code = "INI998"
            docs = ""


def test_a_rule_gets_its_row_from_the_table():
    class Restated(Rule):
        code = "INI902"
        docs = ""

    assert (Restated.name, Restated.severity, Restated.emitted_by_engine) == ("internal-error", "error", True)


def test_findings_take_name_and_severity_from_the_table():
    finding = new_finding("INI103", "m.py", "never written", (3, 5, 3, 9), details={"param": "w"})
    assert (finding.name, finding.severity, finding.line, finding.end_column) == (
        "uninitialised-parameter",
        "error",
        3,
        9,
    )
    assert finding.details == {"param": "w"} and finding.evidence == () and finding.help is None
    point = tool_finding("INI901", "m.py", "cannot read", line=4, column=2)
    assert (point.line, point.column, point.end_line, point.end_column, point.name) == (4, 2, 4, 2, "unparseable-file")
    with pytest.raises(codes.UnknownCode):
        tool_finding("INI1O1", "m.py", "a typo in a code is a bug, not a finding")


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("a\n  b\tc ", 300, "a b c"),
        ("x" * 10, 10, "x" * 10),
        ("x" * 11, 10, "xxxxxxx..."),
        ("", 10, ""),
    ],
)
def test_one_line(text, limit, expected):
    assert one_line(text, limit) == expected


def test_error_text_is_one_line_with_the_type():
    assert error_text(ValueError("bad\nvalue")) == "ValueError: bad value"
    assert error_text(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert error_text(RuntimeError("  ")) == "RuntimeError"
    assert len(error_text(RuntimeError("x" * 1000), 50)) == 50


def test_decode_and_physical_lines_follow_python():
    assert decode(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"
    assert decode(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n").endswith("name = '\u00e9'\n")
    with pytest.raises(SyntaxError):
        decode(b"# -*- coding: no-such-codec -*-\n")
    assert physical_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]


def test_the_two_budgets_are_distinct():
    # The time budget must get through `except Exception` in the analysis; the step budget is
    # caught there on purpose.
    from initlint import guard
    from initlint.analysis import interp

    assert guard.BudgetExceeded is not StepBudgetExceeded and interp.BudgetExceeded is StepBudgetExceeded
    assert not issubclass(guard.BudgetExceeded, Exception) and issubclass(StepBudgetExceeded, Exception)

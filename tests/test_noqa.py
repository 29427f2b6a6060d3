"""`# noqa` handling: the same decisions as flake8's own code, and INI903/INI904."""

from __future__ import annotations

import argparse
import io

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st
from flake8.processor import FileProcessor
from flake8.violation import Violation

from initlint.config import Settings
from initlint.engine import lint_source, tool_finding
from initlint.noqa import NoqaIndex, filter_findings, physical_lines
from sample_models import UNPARSEABLE, gpt_source, writer_lines

CODES = ("INI001", "INI002", "INI903", "E501")


def flake8_hides(source: str, line: int, code: str, tmp_path) -> bool:
    """flake8 7's own decision, through its FileProcessor and Violation."""
    target = tmp_path / "oracle.py"
    target.write_text(source, encoding="utf-8", newline="")
    # flake8 reads files with universal newlines; the physical-line fallback reads the file.
    lines = io.StringIO(source, newline=None).readlines()
    options = argparse.Namespace(hang_closing=False, indent_size=4, max_line_length=79, max_doc_length=None, verbose=0)
    processor = FileProcessor(str(target), options, lines=lines)
    violation = Violation(code, str(target), line, 1, "message", processor.noqa_line_for(line))
    return violation.is_inline_ignored(disable_noqa=False)


def _finding(code: str, line: int):
    from dataclasses import replace

    return replace(tool_finding("INI901", "x.py", "message", line), code=code)


TRICKY_SOURCES = {
    "plain": "import torch\nx = 1  # noqa: INI001\ny = 2\n",
    "upper-no-space": "x = 1  # NOQA:INI001,INI002\n",
    "space-before-colon-is-blanket": "x = 1  # noqa : INI001\n",
    "two-spaces-is-blanket": "x = 1  # noqa:  INI001\n",
    "no-space-after-hash-is-nothing": "x = 1  #noqa: INI001\n",
    "prefix": "x = 1  # noqa: INI0\n",
    "lower-case-code": "x = 1  # noqa: ini001\n",
    "bare-prefix-is-blanket": "x = 1  # noqa: INI\n",
    "explanation-after": "x = 1  # noqa: INI001 the writer is scaled at run time\n",
    "trailing-comma": "x = 1  # noqa: INI001,\n",
    "tab-after-colon": "x = 1  # noqa:\tINI001\n",
    "brackets": "layer = nn.Linear(\n    4 * width,  # noqa: INI001\n    width,\n)\n",
    "triple-quoted": 'doc = """first\nsecond\n"""  # noqa: INI001\nz = 3\n',
    "backslash": "total = 1 + \\\n    2  # noqa: INI001\n",
    "first-directive-wins": 'doc = """a  # noqa: E501\nb"""  # noqa: INI001\n',
    "inside-string": 'label = "# noqa: INI001"\n',
    "crlf": "import torch\r\nx = 1  # noqa: INI001\r\ny = 2\r\n",
    "lone-cr": "x = 1  # noqa: INI001\ry = 2\r",
    "unterminated-bracket": "import torch\nx = (1,  # noqa: INI001\n",
    "no-newline-at-end": "x = 1  # noqa: INI002",
}


@pytest.mark.parametrize("name", sorted(TRICKY_SOURCES))
def test_same_decision_as_flake8_on_every_line(name, tmp_path):
    source = TRICKY_SOURCES[name]
    count = len(physical_lines(source))
    decisions = {
        (line, code): (NoqaIndex(source).hides(_finding(code, line)), flake8_hides(source, line, code, tmp_path))
        for line in range(1, count + 1)
        for code in CODES
    }
    disagreements = {key: pair for key, pair in decisions.items() if pair[0] != pair[1]}
    assert not disagreements, f"(line, code): (initlint, flake8) for {source!r}"
    # flake8 matches the noqa directive in the raw text (even inside a string), case-insensitively but
    # with case-sensitive codes, and only with one space after `#`.
    hides_anything = any(mine for mine, _ in decisions.values())
    assert hides_anything == (name not in {"no-space-after-hash-is-nothing", "lower-case-code"})


FRAGMENTS = [
    "x = 1",
    "  # noqa",
    "  # noqa: INI001",
    "  # NOQA:INI002,E501",
    "  # noqa : INI001",
    "(",
    ")",
    "\n",
    "\n",
    "\\\n",
    '"""',
    "'text'",
    " INI001",
    ",",
    "  # noqa:INI0",
    "\r\n",
    "\t",
    "# comment",
]


@hypothesis_settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=14))
def test_generated_sources_agree_with_flake8(tmp_path_factory, parts):
    source = "".join(parts)
    tmp_path = tmp_path_factory.mktemp("noqa")
    for line in range(1, len(physical_lines(source)) + 1):
        for code in ("INI001", "INI002"):
            assert NoqaIndex(source).hides(_finding(code, line)) == flake8_hides(source, line, code, tmp_path), (
                source,
                line,
                code,
            )


def test_directive_position_points_at_the_comment():
    source = "import torch\nlayer = nn.Linear(4, 4)  # noqa: INI001, E501\n"
    directive = NoqaIndex(source).directive_for(2)
    assert (directive.line, directive.column, directive.codes) == (2, 26, ("INI001", "E501"))
    assert source.splitlines()[1][directive.column - 1 : directive.end_column - 1] == "# noqa: INI001, E501"


def test_directive_in_a_multiline_string_range_reports_its_own_line():
    source = 'import torch\ndoc = """one\ntwo"""  # noqa: INI002\n'
    directive = NoqaIndex(source).directive_for(2)
    assert (directive.line, directive.column) == (3, 9)


# --- filtering and the opt-in rules ---------------------------------------------------------


def _unparseable_finding_line() -> int:
    (finding,) = lint_source(UNPARSEABLE, "broken.py")
    return finding.line


def _with_comment(source: str, line: int, comment: str) -> str:
    lines = source.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + comment + "\n"
    return "".join(lines)


def test_noqa_code_hides_the_finding_and_ignore_noqa_shows_it():
    line = _unparseable_finding_line()
    source = _with_comment(UNPARSEABLE, line, "  # noqa: INI901")
    assert lint_source(source, "broken.py") == []
    (shown,) = lint_source(source, "broken.py", Settings(ignore_noqa=True))
    assert (shown.code, shown.line) == ("INI901", line)


def test_other_codes_do_not_hide_it():
    line = _unparseable_finding_line()
    source = _with_comment(UNPARSEABLE, line, "  # noqa: INI001,E501")
    assert [finding.code for finding in lint_source(source, "broken.py")] == ["INI901"]


def test_blanket_noqa_hides_and_ini903_reports_it_when_selected():
    line = _unparseable_finding_line()
    source = _with_comment(UNPARSEABLE, line, "  # noqa")
    assert lint_source(source, "broken.py") == []
    (blanket,) = lint_source(source, "broken.py", Settings(extend_select=("INI903",)))
    assert blanket.code == "INI903" and blanket.line == line
    assert blanket.message == "bare `# noqa` hides INI901 and every other code on this line; write `# noqa: INI901`"
    assert source.splitlines()[line - 1][blanket.column - 1 :] == "# noqa"


def test_ini904_reports_only_unused_ini_codes():
    source = "import torch\nx = 1  # noqa: INI001, E501, F401\ny = 2  # noqa: E501\n"
    (unused,) = lint_source(source, "plain.py", Settings(extend_select=("INI904",)))
    assert (unused.code, unused.line, unused.column) == ("INI904", 2, 8)
    assert unused.message == "unused `# noqa` code INI001: nothing to hide on this line"
    assert source.splitlines()[1][unused.column - 1 : unused.end_column - 1] == "# noqa: INI001, E501, F401"
    assert lint_source(source, "plain.py") == [], "INI904 is off by default"


def test_ini904_does_not_judge_codes_of_switched_off_rules():
    source = "import torch\nx = 1  # noqa: INI901\n"
    assert lint_source(source, "plain.py", Settings(extend_select=("INI904",), ignore=("INI901",))) == []
    (unused,) = lint_source(source, "plain.py", Settings(extend_select=("INI904",)))
    assert unused.code == "INI904"


def test_used_code_is_not_reported_and_a_partly_used_directive_names_the_rest():
    line = _unparseable_finding_line()
    source = _with_comment(UNPARSEABLE, line, "  # noqa: INI901, INI002")
    findings = lint_source(source, "broken.py", Settings(extend_select=("INI904",)))
    assert [finding.code for finding in findings] == ["INI904"]
    assert findings[0].message == "unused `# noqa` code INI002: nothing to hide on this line"


def test_several_unused_codes_are_named_in_one_finding():
    source = "import torch\nx = 1  # noqa: INI001, E501, INI003\n"
    (unused,) = lint_source(source, "plain.py", Settings(extend_select=("INI904",)))
    assert unused.message == "unused `# noqa` codes INI001, INI003: nothing to hide on this line"
    assert (unused.name, unused.severity) == ("unused-noqa", "warning")
    assert unused.details == {"codes": ["INI001", "INI003"]}  # what the runtime reads


def test_filter_keeps_hidden_findings_for_flake8_but_still_judges_directives():
    source = "import torch\nx = 1  # noqa: INI001\ny = 2  # noqa: INI902\n"
    hidden = _finding("INI902", 3)
    kept = filter_findings([hidden], source, "x.py", Settings(extend_select=("INI904",)), drop_hidden=False)
    assert [(finding.code, finding.line) for finding in kept] == [("INI904", 2), ("INI902", 3)]


def test_noqa_on_the_writer_line_hides_only_that_writer():
    first, second = writer_lines(gpt_source())
    reported = [f.line for f in lint_source(gpt_source(), "model.py") if f.code == "INI001"]
    assert reported == [first, second]
    quiet = gpt_source(attn_comment="  # noqa: INI001")
    assert [f.line for f in lint_source(quiet, "model.py") if f.code == "INI001"] == [second]

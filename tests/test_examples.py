"""`initlint check examples/` reports exactly what each example's docstring documents.

Every file in `examples/` states its expected findings in one docstring line:

    initlint: no findings
    initlint: INI001 at lines 37, 58
    initlint: INI001 at line 36; INI003 at line 70

The CLI runs as a real subprocess over the whole folder, in text and in JSON, and each file
must get those codes at those lines: nothing more, nothing less. `examples/README.md` must
document the same expectation for every file.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.py"))

EXPECTATION_LINE = re.compile(r"^initlint:\s*(?P<body>.+?)\s*$", re.MULTILINE)
CODE_AT_LINES = re.compile(r"^(?P<code>INI\d{3}) at lines? (?P<lines>\d+(?:\s*,\s*\d+)*)$")
TEXT_FINDING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>INI\d{3})(?: \[\*\])? (?P<message>.+)$"
)

Expected = Counter  # Counter[(code, line)]: a code reported twice on one line counts twice


def parse_expectation_text(body: str) -> Expected:
    """`no findings` or `INI001 at lines 3, 4; INI002 at line 9` -> Counter of (code, line)."""
    if body == "no findings":
        return Counter()
    expected: Expected = Counter()
    for part in body.split(";"):
        match = CODE_AT_LINES.match(part.strip())
        if match is None:
            raise ValueError(f"cannot parse expectation {part.strip()!r}")
        for number in match["lines"].split(","):
            expected[(match["code"], int(number))] += 1
    return expected


def expectation_body(path: Path) -> str:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring, f"{path.name}: no module docstring"
    bodies = EXPECTATION_LINE.findall(docstring)
    assert len(bodies) == 1, f"{path.name}: expected exactly one `initlint:` line in the docstring, found {len(bodies)}"
    return bodies[0]


def expected_findings(path: Path) -> Expected:
    return parse_expectation_text(expectation_body(path))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", "check", *args],
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )


SOURCE_LINE = re.compile(r"^\s*(?P<line>\d+) \| (?P<text>.*)$")
CARET_LINE = re.compile(r"^\s+\| \s*\^+$")
SUMMARY_LINE = re.compile(r"^Found (?P<count>\d+) findings? in \d+ files?")
#: Under a finding: its evidence (`--> path:line:col: text`), `= help:` and `= docs:`.
EXPLANATION_LINE = re.compile(r"^\s+(?:--> \S+:\d+:\d+: .+|= (?:help|docs): .+)$")
#: After the summary: what `--fix` / `--unsafe-fixes` would do.
FIX_HINT_LINE = re.compile(
    r"^(?:\[\*\] \d+ fixable with `--fix[^`]*`\.)? ?(?:\d+ fix(?:es)? available with `--unsafe-fixes`\.)?$"
)


def parse_text_report(stdout: str) -> list[dict]:
    """The default text report, read strictly: each finding's headline, the source line it
    points at (which must be that file's line) with a caret under it, and one summary line."""
    findings: list[dict] = []
    summaries: list[int] = []
    lines = stdout.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        headline, summary = TEXT_FINDING.match(line), SUMMARY_LINE.match(line)
        if summary:
            summaries.append(int(summary["count"]))
            index += 1
            if index < len(lines) and lines[index] and FIX_HINT_LINE.match(lines[index]):
                index += 1
            continue
        assert headline, f"unexpected line in the text report: {line!r}"
        finding = {**headline.groupdict(), "line": int(headline["line"]), "column": int(headline["column"])}
        findings.append(finding)
        index += 1
        shown = SOURCE_LINE.match(lines[index]) if index < len(lines) else None
        if shown:
            assert int(shown["line"]) == finding["line"]
            source = (REPO / finding["path"]).read_text(encoding="utf-8").splitlines()
            assert shown["text"] == source[finding["line"] - 1]
            assert index + 1 < len(lines) and CARET_LINE.match(lines[index + 1]), lines[index + 1 : index + 2]
            index += 2
        while index < len(lines) and EXPLANATION_LINE.match(lines[index]):
            index += 1
    assert summaries == ([len(findings)] if findings else []), summaries
    return findings


@lru_cache(maxsize=None)
def cli_findings(output_format: str) -> dict[str, list[dict]]:
    """One CLI run over the whole folder, findings grouped by example file name."""
    result = run_cli("--format", output_format, "examples")
    assert result.returncode in (0, 1), f"exit {result.returncode}: {result.stderr.strip()}"
    assert "Traceback" not in result.stderr, result.stderr
    findings = json.loads(result.stdout) if output_format == "json" else parse_text_report(result.stdout)
    assert result.returncode == (1 if findings else 0)
    grouped: dict[str, list[dict]] = {}
    for finding in findings:
        grouped.setdefault(Path(finding["path"]).name, []).append(finding)
    return grouped


def describe(findings: list[dict]) -> str:
    return "\n".join(f"  {f['line']}:{f['column']}: {f['code']} {f['message']}" for f in findings) or "  (none)"


def test_there_are_enough_examples_covering_every_rule_and_clean_models() -> None:
    assert len(EXAMPLE_FILES) >= 10
    codes = Counter(code for path in EXAMPLE_FILES for code, _ in expected_findings(path))
    assert {"INI001", "INI002", "INI003"} <= set(codes), codes
    clean = [path.name for path in EXAMPLE_FILES if not expected_findings(path)]
    assert len(clean) >= 5, clean


def test_the_expectation_grammar_rejects_what_it_cannot_read() -> None:
    assert parse_expectation_text("INI001 at lines 3, 4; INI002 at line 9") == Counter(
        {("INI001", 3): 1, ("INI001", 4): 1, ("INI002", 9): 1}
    )
    with pytest.raises(ValueError):
        parse_expectation_text("INI001 on line 3")


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.name)
def test_expected_lines_exist_and_hold_code(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for code, number in expected_findings(path):
        assert 1 <= number <= len(lines), f"{path.name}: {code} at line {number}, file has {len(lines)}"
        assert lines[number - 1].strip() and not lines[number - 1].lstrip().startswith("#"), (path.name, number)


@pytest.mark.parametrize("output_format", ["text", "json"])
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.name)
def test_cli_reports_exactly_the_documented_findings(path: Path, output_format: str) -> None:
    reported = cli_findings(output_format).get(path.name, [])
    got = Counter((finding["code"], finding["line"]) for finding in reported)
    expected = expected_findings(path)
    assert got == expected, (
        f"{path.name} ({output_format}): documented {sorted(expected.elements())}, "
        f"initlint reported:\n{describe(reported)}"
    )


def test_json_findings_carry_the_documented_fields_and_match_the_text_output() -> None:
    json_findings = [finding for group in cli_findings("json").values() for finding in group]
    for finding in json_findings:
        for key in ("code", "name", "message", "path", "line", "column", "end_line", "end_column", "severity", "fix"):
            assert key in finding, (key, finding)
        assert finding["line"] >= 1 and finding["column"] >= 1
        assert (finding["end_line"], finding["end_column"]) >= (finding["line"], finding["column"])
        assert finding["message"].strip()

    def positions(grouped: dict[str, list[dict]]) -> Counter:
        return Counter(
            (name, f["line"], f["column"], f["code"], f["message"]) for name, group in grouped.items() for f in group
        )

    assert positions(cli_findings("text")) == positions(cli_findings("json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.name)
def test_one_file_alone_gives_the_same_findings_and_exit_code(path: Path) -> None:
    result = run_cli(str(path.relative_to(REPO)))
    assert "Traceback" not in result.stderr, result.stderr
    expected = expected_findings(path)
    assert result.returncode == (1 if expected else 0), result.stdout + result.stderr
    got = Counter((finding["code"], finding["line"]) for finding in parse_text_report(result.stdout))
    assert got == expected


def readme_expectations() -> dict[str, str]:
    """Table rows of examples/README.md: | [`file.py`](file.py) | INI001 at lines 3, 4 | why |"""
    rows: dict[str, str] = {}
    for line in (EXAMPLES / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = re.match(r"\[?`([^`]+\.py)`", cells[0])
        if name and len(cells) >= 3:
            rows[name.group(1)] = cells[1]
    return rows


def test_readme_documents_every_example_with_the_docstring_expectation() -> None:
    rows = readme_expectations()
    assert set(rows) == {path.name for path in EXAMPLE_FILES}
    for path in EXAMPLE_FILES:
        assert parse_expectation_text(rows[path.name]) == expected_findings(path), path.name

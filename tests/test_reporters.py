"""Reporters: SARIF validated against the official 2.1.0 schema, GitHub escaping, text snippets."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from initlint.cli import main
from initlint.findings import Edit, Finding, Fix
from initlint.reporters import ReportOptions, render
from initlint.reporters import statistics
from initlint.reporters.github import annotation
from initlint.reporters.sarif import sarif_log
from initlint.reporters.text import snippet
from initlint.rules import all_rules
from sample_models import PLAIN, UNPARSEABLE, gpt_source


def _schema_path() -> Path:
    # CI has ../shared/ beside the clone; developers have it at /work/shared.
    for shared in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        candidate = shared / "schemas" / "sarif-schema-2.1.0.json"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("sarif-schema-2.1.0.json not found in ../shared/schemas")


@pytest.fixture(scope="module")
def sarif_validator():
    schema = json.loads(_schema_path().read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def finding(**overrides) -> Finding:
    values = dict(
        code="INI901",
        name="unparseable-file",
        message="cannot parse",
        path="m.py",
        line=2,
        column=5,
        end_line=2,
        end_column=9,
        severity="error",
    )
    values.update(overrides)
    return Finding(**values)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "broken.py").write_text(UNPARSEABLE, encoding="utf-8")
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "stale noqa.py").write_text("import torch\nx = 1  # noqa: INI001\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- SARIF -----------------------------------------------------------------------------------


def test_cli_sarif_validates_and_points_at_the_findings(project, capsys, sarif_validator):
    assert main(["check", "--isolated", "--format", "sarif", "--extend-select", "INI904", "."]) == 1
    log = json.loads(capsys.readouterr().out)
    sarif_validator.validate(log)

    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    results = {result["ruleId"]: result for result in run["results"]}
    assert {"INI901", "INI904"} <= set(results)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]

    stale = results["INI904"]["locations"][0]["physicalLocation"]
    assert stale["artifactLocation"] == {"uri": "stale%20noqa.py", "uriBaseId": "%SRCROOT%"}
    assert stale["region"] == {"startLine": 2, "startColumn": 8, "endLine": 2, "endColumn": 22}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_rules_carry_the_rule_docs(sarif_validator):
    log = sarif_log([])
    sarif_validator.validate(log)
    for descriptor, rule in zip(log["runs"][0]["tool"]["driver"]["rules"], all_rules()):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["help"]["markdown"] == rule.documentation()
        assert descriptor["fullDescription"]["text"] and "\n" not in descriptor["fullDescription"]["text"]
        assert descriptor["defaultConfiguration"]["enabled"] == rule.default_enabled


def test_sarif_fixes_and_paths_outside_the_working_directory(tmp_path, sarif_validator):
    fix = Fix("scale the writer", (Edit(2, 5, 2, 9, "0.02 / math.sqrt(2 * n_layer)"),))
    outside = tmp_path.parent / "elsewhere" / "model.py"
    log = sarif_log(
        [finding(fix=fix), finding(path=str(outside), line=1, column=1, end_line=1, end_column=1)], cwd=tmp_path
    )
    sarif_validator.validate(log)
    with_fix, elsewhere = log["runs"][0]["results"]
    replacement = with_fix["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == "0.02 / math.sqrt(2 * n_layer)"
    assert replacement["deletedRegion"] == {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 9}
    location = elsewhere["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": outside.as_uri()}
    assert location["region"] == {"startLine": 1, "startColumn": 1}  # an empty region has no end


def test_the_schema_check_is_real(sarif_validator):
    log = sarif_log([finding()])
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        sarif_validator.validate(log)


# --- GitHub ----------------------------------------------------------------------------------


def test_github_annotation_escapes_data_and_properties():
    line = annotation(finding(path="dir,x/a:b.py", message="50% too large\nsee INI001", severity="warning"))
    assert line == (
        "::warning file=dir%2Cx/a%3Ab.py,line=2,col=5,endLine=2,endColumn=9,title=INI901 50%25 too large"
        "::INI901 50%25 too large%0Asee INI001"
    )
    multi_line = annotation(finding(end_line=4, severity="note"))
    assert multi_line.startswith("::notice ") and "endLine=4" in multi_line and "endColumn" not in multi_line


# --- text ------------------------------------------------------------------------------------


def test_snippet_keeps_tabs_and_spans_to_the_end_column(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import torch\n\tself.c_proj = nn.Linear(4, 4)\n", encoding="utf-8")
    source, caret = snippet(finding(path=str(path), column=2, end_column=13))
    assert source == "    2 | \tself.c_proj = nn.Linear(4, 4)"
    assert caret == "      | \t" + "^" * 11
    # A finding spanning lines is underlined to the end of its first line.
    _, caret = snippet(finding(path=str(path), column=15, end_line=3, end_column=2))
    assert caret == "      | \t" + " " * 13 + "^" * 16


def test_snippet_is_empty_when_the_line_is_gone(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n", encoding="utf-8")
    assert snippet(finding(path=str(path), line=7)) == []
    assert snippet(finding(path=str(tmp_path / "missing.py"))) == []


def test_text_render_uses_colour_only_when_asked(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\nlayer = nn.Linear(4, 4)\n", encoding="utf-8")
    plain = render("text", [finding(path=str(path))], ReportOptions(files_checked=1))
    coloured = render("text", [finding(path=str(path))], ReportOptions(color=True, files_checked=1))
    assert "\033[" not in plain and "\033[" in coloured
    assert plain.splitlines()[0] == f"{path}:2:5: INI901 cannot parse"


# --- statistics and json ---------------------------------------------------------------------


def test_statistics_most_frequent_first():
    findings = [finding(code="INI904", name="unused-noqa")] + [finding()] * 12
    assert statistics.render(findings) == "12  INI901  unparseable-file\n 1  INI904  unused-noqa\n"
    assert statistics.render([]) == ""


def test_json_shows_non_json_details_as_text():
    data = json.loads(render("json", [finding(details={"path": Path("a/b.py"), "std": 0.02})]))
    assert data[0]["details"] == {"path": "a/b.py", "std": 0.02}
    assert data[0]["line"] == 2 and data[0]["end_column"] == 9 and data[0]["fix"] is None


def test_each_report_reads_the_file_as_it_is_now(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("x = 1\nold_layer = nn.Linear(4, 4)\n", encoding="utf-8")
    assert "old_layer" in render("text", [finding()], ReportOptions())
    Path("m.py").write_text("x = 1\nnew_layer = nn.Linear(4, 4)\n", encoding="utf-8")
    assert "new_layer" in render("text", [finding()], ReportOptions())


# --- findings that read well: headline, evidence, help, doc link ------------------------------

from initlint.findings import Evidence  # noqa: E402
from initlint.reporters import rule_url, shorten  # noqa: E402


def explained(path: str, **overrides) -> Finding:
    """An INI001 the way the rewritten rules report it: headline, evidence steps, help."""
    values = dict(
        code="INI001",
        name="unscaled-residual-projection",
        path=path,
        line=2,
        column=1,
        end_line=2,
        end_column=6,
        message="residual writer `h.*.attn.c_proj` has std 0.02, no depth factor",
        severity="warning",
        evidence=(
            Evidence("weight initialised by normal_(std=0.02)", 3, 5),
            Evidence("added into the stream by `x = x + self.attn(x)`", 9, 9, path="other/block.py"),
        ),
        help="draw it with std=0.02 / math.sqrt(2 * config.n_layer)",
    )
    values.update(overrides)
    return Finding(**values)


def test_text_prints_evidence_help_and_doc_link_under_the_headline(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\nlayer = nn.Linear(4, 4)\n", encoding="utf-8")
    lines = render("text", [explained(str(path))], ReportOptions(files_checked=1)).splitlines()
    assert lines[0] == f"{path}:2:1: INI001 residual writer `h.*.attn.c_proj` has std 0.02, no depth factor"
    assert lines[1:3] == ["    2 | layer = nn.Linear(4, 4)", "      | ^^^^^"]
    assert lines[3] == f"   --> {path}:3:5: weight initialised by normal_(std=0.02)"
    assert lines[4] == "   --> other/block.py:9:9: added into the stream by `x = x + self.attn(x)`"
    assert lines[5] == "    = help: draw it with std=0.02 / math.sqrt(2 * config.n_layer)"
    assert lines[6] == f"    = docs: {rule_url('INI001')}" and rule_url("INI001").endswith(
        "#ini001-unscaled-residual-projection"
    )
    quiet = render("text", [explained(str(path))], ReportOptions(show_source=False, summary=False))
    assert quiet.splitlines() == [lines[0]]


def test_json_evidence_is_structured_with_positions():
    (data,) = json.loads(render("json", [explained("m.py")]))
    assert data["message"].startswith("residual writer") and len(data["message"]) <= 100
    assert data["evidence"] == [
        {"message": "weight initialised by normal_(std=0.02)", "line": 3, "column": 5, "path": "m.py", "cell": None},
        {
            "message": "added into the stream by `x = x + self.attn(x)`",
            "line": 9,
            "column": 9,
            "path": "other/block.py",
            "cell": None,
        },
    ]
    assert data["help"].startswith("draw it") and data["url"] == rule_url("INI001") and data["fixable"] is False


def test_sarif_related_locations_and_help_uri(tmp_path, monkeypatch, sarif_validator):
    monkeypatch.chdir(tmp_path)
    log = sarif_log([explained("m.py")])
    sarif_validator.validate(log)
    (result,) = log["runs"][0]["results"]
    first, second = result["relatedLocations"]
    assert first["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5}
    assert first["message"]["text"] == "weight initialised by normal_(std=0.02)"
    assert second["physicalLocation"]["artifactLocation"]["uri"] == "other/block.py"
    assert {first["id"], second["id"]} == {0, 1}
    descriptors = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(descriptor["helpUri"] == rule_url(descriptor["id"]) for descriptor in descriptors)


def test_github_title_is_the_headline_and_the_body_the_evidence():
    line = annotation(explained("m.py"))
    title = line.split("title=", 1)[1].split("::", 1)[0]
    assert title == "INI001 residual writer `h.*.attn.c_proj` has std 0.02%2C no depth factor"
    body = line.split("::", 2)[2].split("%0A")
    assert body[1] == "--> m.py:3:5: weight initialised by normal_(std=0.02)"
    assert body[3].startswith("help: ") and body[4] == f"docs: {rule_url('INI001')}"


def test_long_titles_are_cut_between_words_never_inside_a_name():
    text = "INI003 `self.c_proj(self.gelu(self.c_fc(x))) / math.sqrt(2 * self.n_layer)` scales the output of residual writer `transformer.h.*.mlp.c_proj`"
    short = shorten(text, 100)
    assert len(short) <= 100 and short.endswith("...")
    assert text.startswith(short[:-3]) and text[len(short) - 3] == " "
    assert shorten("x" * 150, 100) == "x" * 150  # one name: whole, not cut
    long = annotation(finding(message=text))
    assert "transforme..." not in long and "title=INI901 INI003" in long

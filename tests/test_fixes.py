"""Fixes are written atomically, keep permissions and encodings, never touch a file that changed
since it was linted, and a failing run leaves every file as it was.

No rule has fixes yet, so the findings here are synthetic: real INI001 findings from the engine
(`lint_file`, which records the content hash) with edits attached.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

import initlint.fixes
from initlint.engine import lint_file, tool_finding, with_source_digest
from initlint.findings import Edit, Finding, Fix
from initlint.fixes import apply_fixes
from robustness_inputs import nano_gpt

SCALED_STD = "0.02 / math.sqrt(2 * config.n_layer)"


def fixable_findings(path: Path, *fixes: Fix) -> list[Finding]:
    """Findings for `path` as `lint_file` returns them, each carrying one of `fixes`."""
    base = tool_finding("INI901", str(path), "synthetic finding carrying a fix")
    return with_source_digest([replace(base, fix=fix) for fix in fixes], path.read_bytes())


def replace_text(source: str, old: str, new: str, occurrence: int = 0) -> Edit:
    """An edit replacing the `occurrence`-th `old` in `source` by `new` (positions 1-based)."""
    index = -1
    for _ in range(occurrence + 1):
        index = source.index(old, index + 1)
    line = source.count("\n", 0, index) + 1
    column = index - (source.rfind("\n", 0, index) + 1) + 1
    return Edit(line, column, line, column + len(old), new)


def std_fix(source: str, occurrence: int = 0) -> Fix:
    return Fix("scale the writer", (replace_text(source, "std=0.02)", f"std={SCALED_STD})", occurrence),))


@pytest.fixture
def model(tmp_path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(nano_gpt(scaled=False), encoding="utf-8")
    return path


def test_a_fix_is_applied_and_the_result_parses(model):
    source = model.read_text()
    report = apply_fixes(fixable_findings(model, std_fix(source)))
    assert report.fixed == {str(model): 1} and report.error is None
    fixed = model.read_text()
    assert fixed == source.replace("std=0.02)", f"std={SCALED_STD})", 1)
    assert [f.code for f in lint_file(model) if f.code.startswith("INI9")] == []  # still parses


def test_findings_from_lint_file_carry_the_content_hash(model):
    findings = lint_file(model)
    assert findings and all(f.fix is None for f in findings)  # no rule has fixes yet
    fixed = with_source_digest([replace(findings[0], fix=std_fix(model.read_text()))], model.read_bytes())
    assert fixed[0].fix.source_sha256 == initlint.fixes.sha256(model.read_bytes())


def test_several_fixes_and_a_multi_line_edit(model):
    source = model.read_text()
    lines = source.splitlines()
    first = lines.index("    def _init_weights(self, module):") + 1
    documented = "    # initialised as GPT-2 does\n    def _init_weights(self, module):\n"
    comment = Fix("document", (Edit(first, 1, first + 1, 1, documented),))
    report = apply_fixes(fixable_findings(model, std_fix(source, 0), std_fix(source, 1), comment))
    assert report.fixed == {str(model): 3}
    fixed = model.read_text()
    assert fixed.count(SCALED_STD) == source.count(SCALED_STD) + 2
    assert "    # initialised as GPT-2 does\n    def _init_weights" in fixed


def test_overlapping_fixes_apply_the_first_and_skip_the_other(model):
    source = model.read_text()
    other = Fix("other", (replace_text(source, "std=0.02", "std=0.01"),))
    report = apply_fixes(fixable_findings(model, std_fix(source), other))
    assert report.fixed == {str(model): 1}
    assert any("overlaps" in reason for _, reason in report.skipped)
    assert model.read_text().count(SCALED_STD) == 1


def test_a_file_changed_since_it_was_linted_is_never_touched(model):
    findings = fixable_findings(model, std_fix(model.read_text()))
    changed = model.read_text() + "# edited by the user meanwhile\n"
    model.write_text(changed)
    report = apply_fixes(findings)
    assert report.fixed == {} and "changed since it was linted" in report.skipped[0][1]
    assert model.read_text() == changed


def test_a_fix_without_a_recorded_hash_is_refused(model):
    source = model.read_text()
    finding = replace(tool_finding("INI901", str(model), "synthetic"), fix=std_fix(source))
    report = apply_fixes([finding])
    assert report.fixed == {} and "no content hash" in report.skipped[0][1]
    assert model.read_text() == source


def test_a_fix_that_breaks_the_syntax_is_refused(model):
    source = model.read_text()
    broken = Fix("break it", (replace_text(source, "std=0.02)", "std=(0.02"),))
    report = apply_fixes(fixable_findings(model, broken))
    assert report.fixed == {} and "would not parse" in report.skipped[0][1]
    assert model.read_text() == source


def test_an_edit_outside_the_file_is_refused(model):
    source = model.read_text()
    report = apply_fixes(fixable_findings(model, Fix("far away", (Edit(10_000, 1, 10_000, 2, "x"),))))
    assert report.fixed == {} and "outside the file" in report.skipped[0][1]
    assert model.read_text() == source


def test_permissions_encoding_bom_and_line_endings_are_kept(tmp_path):
    path = tmp_path / "latin.py"
    source = "# -*- coding: latin-1 -*-\n# caf\u00e9\n" + nano_gpt(scaled=False)
    path.write_bytes(b"\xef\xbb\xbf" + source.replace("\n", "\r\n").encode("utf-8").replace(b"latin-1", b"utf-8"))
    os.chmod(path, 0o640)
    text = path.read_bytes().decode("utf-8-sig")
    edit = replace_text(text.replace("\r\n", "\n"), "std=0.02)", f"std={SCALED_STD})\n            pass  # noqa")
    report = apply_fixes(fixable_findings(path, Fix("scale", (edit,))))
    assert report.fixed == {str(path): 1}, report.skipped
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and "caf\u00e9".encode() in data
    assert b"\r\n            pass  # noqa\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_symbolic_link_stays_a_link_and_its_target_is_fixed(model, tmp_path):
    link = tmp_path / "link.py"
    link.symlink_to(model)
    report = apply_fixes(fixable_findings(link, std_fix(model.read_text())))
    assert report.fixed == {str(link): 1}
    assert link.is_symlink() and SCALED_STD in model.read_text().split("_init_weights", 1)[1]


def test_a_failure_while_writing_leaves_every_file_as_it_was(tmp_path, monkeypatch):
    paths = [tmp_path / f"model_{index}.py" for index in range(3)]
    for path in paths:
        path.write_text(nano_gpt(scaled=False))
    findings = [finding for path in paths for finding in fixable_findings(path, std_fix(path.read_text()))]
    before = {path: path.read_bytes() for path in paths}

    real_replace = os.replace
    calls = []

    def replace_then_fail(source, target):
        calls.append(target)
        if len(calls) == 3:  # the first two files are already replaced
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(initlint.fixes.os, "replace", replace_then_fail)
    report = apply_fixes(findings)
    monkeypatch.undo()
    assert report.error is not None and "No space left" in report.error and report.fixed == {}
    assert {path: path.read_bytes() for path in paths} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)  # no temporaries left


def test_a_file_changed_during_the_write_aborts_everything(tmp_path, monkeypatch):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    for path in (first, second):
        path.write_text(nano_gpt(scaled=False))
    findings = fixable_findings(first, std_fix(first.read_text())) + fixable_findings(
        second, std_fix(second.read_text())
    )
    real_write = initlint.fixes._write_temporary

    def write_then_meddle(target, data):
        name = real_write(target, data)
        if target.name == "b.py":  # someone saves a.py while b.py's temporary is written
            first.write_text(first.read_text() + "# saved meanwhile\n")
        return name

    monkeypatch.setattr(initlint.fixes, "_write_temporary", write_then_meddle)
    report = apply_fixes(findings)
    assert report.error is not None and report.fixed == {}
    assert (
        first.read_text().endswith("# saved meanwhile\n")
        and SCALED_STD not in first.read_text().split("_init_weights", 1)[1]
    )
    assert second.read_text() == nano_gpt(scaled=False)

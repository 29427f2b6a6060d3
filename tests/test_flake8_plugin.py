"""The flake8 plugin, driven through real flake8 processes, compared with the CLI."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Callable

import pytest

from initlint.engine import lint_source
from initlint.flake8_plugin import InitlintChecker, off_by_default_codes, rule_codes
from initlint.rules import all_rules
from sample_models import gpt_source, tripwire_source, writer_lines

STALE_NOQA = 'import torch\nlabel = "é"  # noqa: INI001\nwidth = 4  # noqa: E501,INI0\n'
NO_MARKERS = "def add(a, b):\n    return a + b\n"


def flake8(*args: str, cwd, stdin: str | None = None) -> subprocess.CompletedProcess:
    # --isolated: no user or project flake8 config can change what is reported.
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def initlint(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", "--quiet", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def ini_positions(output: str) -> list[tuple[str, int, int, str]]:
    """(path, line, column, code) of every INI line of `path:line:col: CODE message` output."""
    rows = []
    for line in output.splitlines():
        path, row, col, rest = line.split(":", 3)
        code = rest.split()[0]
        if code.startswith("INI"):
            rows.append((path, int(row), int(col), code))
    return rows


def ini_lines(output: str) -> list[str]:
    """The whole `path:line:col: CODE message` line of every INI finding, as the user reads it."""
    return [line for line in output.splitlines() if line.split(":", 3)[-1].split()[0].startswith("INI")]


def in_process_flake8(script: str, cwd) -> Callable[..., subprocess.CompletedProcess]:
    """Run flake8 inside a fresh interpreter after `script`, then report whether LibCST was
    imported; `-j1` keeps the checks in this process."""
    program = textwrap.dedent(script) + textwrap.dedent(
        """
        import sys
        from flake8.main.cli import main as flake8_main
        code = flake8_main(["--isolated", "-j1", *sys.argv[1:]])
        print("libcst imported:", "libcst" in sys.modules)
        sys.exit(code)
        """
    )
    return lambda *args: subprocess.run(
        [sys.executable, "-c", program, *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


# --- cost: what every flake8 user pays ------------------------------------------------------


def test_importing_the_plugin_does_not_import_libcst():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, initlint.flake8_plugin; print(sorted(m for m in sys.modules if m.startswith('libcst')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == "[]", result.stderr


def test_files_without_markers_and_runs_without_ini_codes_never_import_libcst(tmp_path):
    (tmp_path / "plain.py").write_text(NO_MARKERS, encoding="utf-8")
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    run = in_process_flake8("", tmp_path)
    plain = run("plain.py")
    assert plain.stdout.splitlines()[-1] == "libcst imported: False", plain.stderr
    # A model file, but flake8 would report none of initlint's codes: nothing is parsed.
    unselected = run("--select", "E,F,W", "model.py")
    assert unselected.stdout.splitlines()[-1] == "libcst imported: False", unselected.stderr
    selected = run("--select", "INI", "model.py")
    assert selected.stdout.splitlines()[-1] == "libcst imported: True", selected.stderr


def test_start_up_reads_the_code_table_only():
    # flake8 asks for the codes at the start of every run: no rule module, no LibCST.
    script = (
        "import sys, initlint.flake8_plugin as plugin\n"
        "plugin.rule_codes(); plugin.off_by_default_codes()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('initlint.rules', 'initlint.analysis', 'libcst'))))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_rule_codes_come_from_the_code_table_and_agree_with_the_rules():
    assert rule_codes() == {rule.code: rule.default_enabled for rule in all_rules()}
    assert off_by_default_codes() == tuple(sorted(rule.code for rule in all_rules() if not rule.default_enabled))
    assert {"INI903", "INI904"} <= set(off_by_default_codes())


# --- same positions, same suppression as the CLI --------------------------------------------


def test_positions_and_messages_match_the_cli(tmp_path):
    (tmp_path / "stale.py").write_text(STALE_NOQA, encoding="utf-8")
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9\xe9'  # noqa: INI002\n")
    files = ["latin.py", "model.py", "stale.py"]
    flake8_output = flake8("--select", "INI", *files, cwd=tmp_path).stdout
    cli_output = initlint("--extend-select", "INI903,INI904", *files, cwd=tmp_path).stdout
    # The same lines word for word: position, code and the whole message.
    assert ini_lines(flake8_output) == ini_lines(cli_output)
    assert "stale.py:2:14: INI904 unused `# noqa` code INI001: nothing to hide on this line" in ini_lines(cli_output)
    assert "stale.py:3:12: INI904 unused `# noqa` code INI0: nothing to hide on this line" in ini_lines(cli_output)
    from_cli = ini_positions(cli_output)
    # Columns count characters: after "é" the comment is at character 14 on both.
    assert ("stale.py", 2, 14, "INI904") in from_cli
    assert ("stale.py", 3, 12, "INI904") in from_cli
    assert ("latin.py", 3, 14, "INI904") in from_cli
    writers = writer_lines(gpt_source())
    assert [row[1] for row in from_cli if row[0] == "model.py" and row[3] == "INI001"] == writers


def test_noqa_is_honoured_identically(tmp_path):
    source = gpt_source(attn_comment="  # noqa: INI001", mlp_comment="  # noqa: E501")
    (tmp_path / "model.py").write_text(source, encoding="utf-8")
    from_flake8 = ini_positions(flake8("--select", "INI", "model.py", cwd=tmp_path).stdout)
    from_cli = ini_positions(initlint("--extend-select", "INI904", "model.py", cwd=tmp_path).stdout)
    assert from_flake8 == from_cli
    assert [row[1] for row in from_cli if row[3] == "INI001"] == writer_lines(source)[1:]
    # Both tools show everything when asked to disregard noqa directives.
    everything_flake8 = ini_positions(flake8("--select", "INI", "--disable-noqa", "model.py", cwd=tmp_path).stdout)
    everything_cli = ini_positions(initlint("--ignore-noqa", "model.py", cwd=tmp_path).stdout)
    assert everything_flake8 == everything_cli
    assert [row[1] for row in everything_cli if row[3] == "INI001"] == writer_lines(source)


def test_opt_in_rules_stay_off_under_flake8(tmp_path):
    (tmp_path / "stale.py").write_text(STALE_NOQA, encoding="utf-8")
    default = flake8("stale.py", cwd=tmp_path)
    assert ini_positions(default.stdout) == []
    assert "F401" in default.stdout  # flake8's own checks still ran
    opted_in = flake8("--extend-select", "INI904", "stale.py", cwd=tmp_path)
    assert [row[3] for row in ini_positions(opted_in.stdout)] == ["INI904", "INI904"]
    assert ini_positions(flake8("--extend-select", "INI904", "--disable-noqa", "stale.py", cwd=tmp_path).stdout) == []


def test_messages_start_with_the_code(tmp_path):
    (tmp_path / "stale.py").write_text(STALE_NOQA, encoding="utf-8")
    result = flake8("--select", "INI", "--format", "%(code)s|%(text)s", "stale.py", cwd=tmp_path)
    code, text = result.stdout.splitlines()[0].split("|")
    assert (code, text) == ("INI904", "unused `# noqa` code INI001: nothing to hide on this line")


def test_stdin_gives_the_same_findings(tmp_path):
    (tmp_path / "stale.py").write_text(STALE_NOQA, encoding="utf-8")
    from_file = flake8("--select", "INI", "stale.py", cwd=tmp_path).stdout
    from_stdin = flake8(
        "--select", "INI", "--stdin-display-name", "stale.py", "-", cwd=tmp_path, stdin=STALE_NOQA
    ).stdout
    assert from_stdin == from_file and from_file


def test_checked_files_are_never_imported(tmp_path):
    marker = tmp_path / "IMPORTED"
    (tmp_path / "tripwire.py").write_text(tripwire_source(str(marker)), encoding="utf-8")
    result = flake8("--select", "INI", "tripwire.py", cwd=tmp_path)
    assert "INI001" in result.stdout  # it was analysed ...
    assert not marker.exists()  # ... and never run


# --- never abort the user's flake8 run ------------------------------------------------------


def test_an_internal_error_is_one_finding_and_the_run_goes_on(tmp_path):
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    (tmp_path / "other.py").write_text("import os\n", encoding="utf-8")
    run = in_process_flake8(
        """
        import initlint.engine

        def broken(*args, **kwargs):
            raise RuntimeError("analysis exploded\\non two lines")

        initlint.engine.lint_source = broken
        """,
        tmp_path,
    )
    result = run("--select", "INI,F", "model.py", "other.py")
    lines = result.stdout.splitlines()
    assert (
        "model.py:1:1: INI902 initlint failed on this file (RuntimeError: analysis exploded on two lines); please report it"
        in lines
    )
    assert any(line.startswith("other.py:1:1: F401") for line in lines)
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_plugin_contract():
    # flake8 picks the plugin kind from the __init__ parameters and the code from the message.
    import inspect

    assert list(inspect.signature(InitlintChecker.__init__).parameters) == ["self", "tree", "lines", "filename"]
    checker = InitlintChecker(None, STALE_NOQA.splitlines(keepends=True), "stale.py")
    assert list(checker.run()) == []  # defaults outside flake8: INI904 is opt-in
    broken = InitlintChecker(None, [None], "x.py")  # type: ignore[list-item]
    ((line, column, message, kind),) = list(broken.run())
    assert (line, column, kind) == (1, 0, InitlintChecker)
    assert message == (
        "INI902 initlint failed on this file (TypeError: sequence item 0: expected str instance, NoneType found); "
        "please report it"
    )


def test_results_carry_the_engines_message_after_the_code():
    # In process, no flake8: the plugin's tuples are (line, 0-based column, "CODE message", type).
    source = "import torch\nx = 1\0\n"
    (finding,) = lint_source(source, "net.py")
    ((line, column, message, kind),) = list(InitlintChecker(None, source.splitlines(keepends=True), "net.py").run())
    assert (line, column + 1, kind) == (finding.line, finding.column, InitlintChecker)
    assert message == f"INI901 {finding.message}"
    assert (line, message) == (2, "INI901 cannot parse: the file contains NUL bytes (binary data?)")


@pytest.mark.parametrize("code", [rule.code for rule in all_rules()])
def test_every_code_is_a_valid_flake8_code(code):
    import re

    assert re.fullmatch(r"[A-Z]{1,3}[0-9]{0,3}", code)

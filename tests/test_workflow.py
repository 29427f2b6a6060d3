"""The CLI workflow, as ruff users expect it: stdin, `--diff`, fix hints and marks, one-line
usage errors, `--exit-zero`, `--select INI904` alone, progress on a terminal only, and typos
under `[tool.initlint.runtime]` caught by static runs. Real subprocess runs where it matters."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sample_models import PLAIN, UNPARSEABLE, gpt_source, writer_lines
from test_cli import _run_on_a_terminal

REPO = Path(__file__).resolve().parent.parent
#: An example whose only finding (INI002) has an unsafe fix: sqrt(n_layer) -> sqrt(2 * n_layer).
SQRT_EXAMPLE = REPO / "examples" / "gpt2_sqrt_n_layer.py"


def initlint(*args: str, cwd, stdin: str | None = None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture
def sqrt_model(tmp_path):
    shutil.copy(SQRT_EXAMPLE, tmp_path / "model.py")
    return tmp_path


def test_usage_errors_are_one_line(tmp_path):
    for args in (["check", "--bogus"], ["check", "--format", "xml"], ["frobnicate"], ["check", "--jobs", "x"]):
        result = initlint(*args, cwd=tmp_path)
        assert result.returncode == 2, args
        assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("initlint: error: ") and "--help" in result.stderr


def test_stdin_is_checked_under_the_stdin_filename(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.initlint.per-file-ignores]\n"legacy/*" = ["INI001"]\n')
    source = gpt_source()
    result = initlint("check", "-", "--stdin-filename", "src/model.py", cwd=tmp_path, stdin=source)
    assert result.returncode == 1
    headlines = [line for line in result.stdout.splitlines() if ": INI001 " in line]
    assert [line.split(":")[:2] for line in headlines] == [["src/model.py", str(n)] for n in writer_lines(source)]
    assert "self.c_proj = nn.Linear(" in result.stdout  # the snippet comes from stdin, not disk
    # per-file-ignores match the stdin filename
    ignored = initlint("check", "-", "--stdin-filename", "legacy/model.py", cwd=tmp_path, stdin=source)
    assert (ignored.returncode, ignored.stdout) == (0, "")
    anonymous = initlint("check", "-", "--isolated", "--quiet", cwd=tmp_path, stdin=source)
    assert anonymous.stdout.startswith("-:")
    implicit = initlint("check", "--stdin-filename", "src/model.py", "--quiet", cwd=tmp_path, stdin=source)
    assert implicit.stdout.startswith("src/model.py:")
    undecodable = initlint("check", "-", "--quiet", cwd=tmp_path, stdin="# -*- coding: nonsense -*-\nimport torch\n")
    assert undecodable.returncode == 2 and undecodable.stdout.startswith("-:1:1: INI901 cannot decode")
    assert "Traceback" not in undecodable.stderr
    mixed = initlint("check", "-", "model.py", cwd=tmp_path, stdin=source)
    assert mixed.returncode == 2 and "stdin" in mixed.stderr


def test_unsafe_fix_is_hinted_marked_and_diffed(sqrt_model):
    before = (sqrt_model / "model.py").read_text()
    plain = initlint("check", "--isolated", "model.py", cwd=sqrt_model)
    assert "1 fix available with `--unsafe-fixes`." in plain.stdout and "[*]" not in plain.stdout
    # --fix alone says the same: the only fix is unsafe
    fixed_safe = initlint("check", "--isolated", "--fix", "model.py", cwd=sqrt_model)
    assert "1 fix available with `--unsafe-fixes`." in fixed_safe.stdout
    # --unsafe-fixes without --fix shows the fix as applicable instead of ignoring the flag
    shown = initlint("check", "--isolated", "--unsafe-fixes", "model.py", cwd=sqrt_model)
    assert ": INI002 [*] " in shown.stdout and "[*] 1 fixable with `--fix --unsafe-fixes`." in shown.stdout
    diff = initlint("check", "--isolated", "--diff", "--unsafe-fixes", "model.py", cwd=sqrt_model)
    assert diff.returncode == 1
    assert diff.stdout.startswith("--- a/model.py\n+++ b/model.py\n@@ ")
    assert "-                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(config.n_layer))" in diff.stdout
    assert (
        "+                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))" in diff.stdout
    )
    assert (sqrt_model / "model.py").read_text() == before  # --diff writes nothing
    assert initlint("check", "--isolated", "--diff", "model.py", cwd=sqrt_model).stdout == ""  # safe only: none
    stdin_diff = initlint("check", "-", "--isolated", "--diff", "--unsafe-fixes", cwd=sqrt_model, stdin=before)
    assert stdin_diff.stdout.splitlines()[:2] == ["--- a/-", "+++ b/-"]
    applied = initlint("check", "--isolated", "--fix", "--unsafe-fixes", "model.py", cwd=sqrt_model)
    assert applied.returncode == 0 and "sqrt(2 * config.n_layer)" in (sqrt_model / "model.py").read_text()


def test_exit_zero_even_when_nothing_could_be_checked(tmp_path):
    (tmp_path / "broken.py").write_text(UNPARSEABLE)
    assert initlint("check", "--isolated", "broken.py", cwd=tmp_path).returncode == 2
    result = initlint("check", "--isolated", "--exit-zero", "broken.py", cwd=tmp_path)
    assert result.returncode == 0 and "INI901" in result.stdout


def test_select_unused_noqa_alone_judges_every_directive(tmp_path):
    source = gpt_source(attn_comment="  # noqa: INI001").replace("import torch", "import torch  # noqa: INI002", 1)
    (tmp_path / "m.py").write_text(source)
    result = initlint("check", "--isolated", "--quiet", "--select", "INI904", "m.py", cwd=tmp_path)
    # The INI001 directive hides a real finding (used); the INI002 one hides nothing.
    assert result.stdout.splitlines() == ["m.py:4:15: INI904 unused `# noqa` code INI002: nothing to hide on this line"]


def test_runtime_table_typo_fails_a_static_run(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.initlint.runtime]\ntimeuot = 30\n")
    (tmp_path / "plain.py").write_text(PLAIN)
    result = initlint("check", "plain.py", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "pyproject.toml" in result.stderr and "'timeuot'" in result.stderr


def test_progress_only_on_a_terminal_and_only_for_text(tmp_path):
    for index in range(60):
        (tmp_path / f"m{index}.py").write_text(PLAIN)
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    assert "checking" in _run_on_a_terminal(["check", "--isolated", "."], tmp_path, env, "stderr")
    assert "checking" not in _run_on_a_terminal(
        ["check", "--isolated", "--format", "json", "."], tmp_path, env, "stderr"
    )
    piped = initlint("check", "--isolated", ".", cwd=tmp_path)
    assert piped.stderr == "" and piped.stdout == ""

"""`initlint check` end to end: exit codes, output formats, flags, colour, the catalogue."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from pathlib import Path

import pytest

from initlint.cli import main
from initlint.engine import lint_file
from initlint.reporters import rule_url, shorten
from sample_models import PLAIN, UNPARSEABLE, gpt_source, writer_lines

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with one unparseable file (a deterministic INI901) and one clean file."""
    (tmp_path / "broken.py").write_text(UNPARSEABLE, encoding="utf-8")
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--isolated", *args])
    out, err = capsys.readouterr()
    return code, out, err


def broken_finding():
    (finding,) = lint_file("broken.py")
    return finding


# --- exit codes ------------------------------------------------------------------------------


def test_exit_codes(project, capsys):
    assert check(capsys, "plain.py") == (0, "", "")
    assert check(capsys, ".")[0] == 1
    code, out, _ = check(capsys, "--exit-zero", ".")
    assert code == 0 and "INI901" in out
    # Nothing could be checked at all: an error, not a finding.
    assert check(capsys, "broken.py")[0] == 2
    # --exit-zero means it: CI steps that only collect a report never fail (ruff does the same).
    assert check(capsys, "--exit-zero", "broken.py")[0] == 0


def test_no_python_files_is_a_warning(project, capsys):
    (project / "empty").mkdir()
    assert check(capsys, "empty") == (0, "", "initlint: warning: no Python files to check\n")


# --- text ------------------------------------------------------------------------------------


def test_text_shows_the_source_line_and_a_caret(project, capsys):
    finding = broken_finding()
    code, out, _ = check(capsys, ".")
    lines = out.splitlines()
    assert lines[0] == f"broken.py:{finding.line}:{finding.column}: INI901 {finding.message}"
    source_line = UNPARSEABLE.splitlines()[finding.line - 1]
    assert lines[1] == f"{finding.line:>5} | {source_line}"
    gutter, caret = lines[2].split("| ", 1)
    assert gutter == " " * 6 and caret.index("^") == finding.column - 1
    assert lines[3] == "Found 1 finding in 1 file (2 files checked)."
    assert len(lines) == 4


def test_text_without_source_and_quiet(project, capsys):
    headline = check(capsys, "--quiet", ".")[1]
    assert headline.count("\n") == 1 and headline.startswith("broken.py:")
    no_source = check(capsys, "--no-show-source", ".")[1]
    assert no_source == headline + "Found 1 finding in 1 file (2 files checked).\n"


def test_statistics(project, capsys):
    (project / "broken2.py").write_text(UNPARSEABLE, encoding="utf-8")
    code, out, _ = check(capsys, "--quiet", "--statistics", ".")
    assert out.splitlines()[-1] == "2  INI901  unparseable-file"
    # Machine formats keep stdout parseable: the table goes to stderr.
    code, out, err = check(capsys, "--format", "json", "--statistics", ".")
    assert len(json.loads(out)) == 2 and err == "2  INI901  unparseable-file\n"


# --- json and github -------------------------------------------------------------------------


def test_json_matches_the_engine(project, capsys):
    code, out, _ = check(capsys, "--format", "json", ".")
    assert code == 1
    expected = {**broken_finding().to_dict(), "url": rule_url("INI901"), "fixable": False}
    assert json.loads(out) == [json.loads(json.dumps(expected))]


def test_github_annotations(project, capsys):
    finding = broken_finding()
    code, out, _ = check(capsys, "--format", "github", ".")
    assert out.startswith(f"::error file=broken.py,line={finding.line},col={finding.column},")
    title = shorten(f"INI901 {finding.message}", 120).replace(":", "%3A").replace(",", "%2C")
    assert out.endswith(f",title={title}::INI901 {finding.message}\n")
    assert out.count("\n") == 1


# --- flags -----------------------------------------------------------------------------------


def test_select_and_ignore(project, capsys):
    assert check(capsys, "--ignore", "INI9", "plain.py", "broken.py")[:2] == (0, "")
    assert check(capsys, "--select", "INI902", "plain.py", "broken.py")[:2] == (0, "")
    assert "INI901" in check(capsys, "--select", "INI902", "--extend-select", "INI901", ".")[1]


def test_jobs_gives_the_same_output(project, capsys):
    for index in range(6):
        (project / f"broken_{index}.py").write_text(UNPARSEABLE, encoding="utf-8")
    serial = check(capsys, "--jobs", "1", ".")
    assert serial[1].count("INI901") == 7
    assert check(capsys, "--jobs", "2", ".") == serial


def test_bad_jobs_value_is_a_usage_error(project, capsys):
    with pytest.raises(SystemExit) as raised:
        main(["check", "--jobs", "0", "."])
    assert raised.value.code == 2
    assert "expected 1 or more" in capsys.readouterr().err


def test_fix_flag(project, capsys):
    try:
        import initlint.fixes  # noqa: F401
    except ModuleNotFoundError:
        code, out, err = check(capsys, "--fix", ".")
        assert (code, out) == (2, "")
        assert err == "initlint: error: --fix is not available in this build (initlint.fixes is missing)\n"
    else:
        # Nothing in an unparseable file is fixable: the finding survives the fix pass.
        code, out, _ = check(capsys, "--fix", "--quiet", ".")
        assert code == 1 and "INI901" in out
        assert (project / "broken.py").read_text(encoding="utf-8") == UNPARSEABLE


# --- the analysis through the CLI ------------------------------------------------------------


def test_reports_unscaled_writers_where_they_are_created(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(gpt_source(), encoding="utf-8")
    (tmp_path / "scaled.py").write_text(gpt_source(scaled=True), encoding="utf-8")
    code, out, _ = check(capsys, "--format", "json", ".")
    ini001 = [(f["path"], f["line"]) for f in json.loads(out) if f["code"] == "INI001"]
    assert ini001 == [("model.py", line) for line in writer_lines(gpt_source())]
    assert code == 1


# --- colour ----------------------------------------------------------------------------------


def _run_on_a_terminal(args: list[str], cwd, env: dict[str, str], stream: str = "stdout") -> str:
    """Run the CLI with `stream` (stdout or stderr) on a pseudo-terminal, the other one
    discarded; return what it printed there."""
    leader, follower = pty.openpty()
    streams = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, stream: follower}
    process = subprocess.Popen([sys.executable, "-m", "initlint", *args], cwd=cwd, env=env, **streams)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closes when the child exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")


def test_colour_only_on_a_terminal_without_no_color(project):
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    args = ["check", "--isolated", "broken.py", "plain.py"]
    assert "\033[" in _run_on_a_terminal(args, project, env)
    assert "\033[" not in _run_on_a_terminal(args, project, {**env, "NO_COLOR": "1"})
    piped = subprocess.run(
        [sys.executable, "-m", "initlint", *args], cwd=project, env=env, capture_output=True, text=True
    )
    assert "INI901" in piped.stdout and "\033[" not in piped.stdout
    forced = subprocess.run(
        [sys.executable, "-m", "initlint", *args, "--color", "always"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "\033[" in forced.stdout


# --- robustness of the CLI itself ------------------------------------------------------------


def test_closed_pipe_is_not_a_traceback(project):
    """`initlint check | head -1`: the reader is gone before the output is written."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "initlint", "check", "--isolated", "."],
            cwd=project,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert result.stderr == "" and result.returncode == 2


def test_cli_works_where_torch_cannot_be_imported(project):
    # A None entry makes every `import torch` fail, as on a machine without torch.
    script = (
        "import sys; sys.modules['torch'] = None\n"
        "from initlint.cli import main\n"
        "sys.exit(main(['check', '--isolated', '.']))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "INI901" in result.stdout, result.stderr


def test_runtime_flags_are_wired_without_torch(project):
    """`--runtime` comes from initlint.runtime.cli, registered without importing torch; asking
    for it where torch is missing is a usage error, not a traceback."""
    script = "import sys; sys.modules['torch'] = None\nfrom initlint.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    usage = subprocess.run(
        [sys.executable, "-c", script, "check", "--help"], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert usage.returncode == 0 and "--runtime" in usage.stdout and "--statistics" in usage.stdout
    runtime = subprocess.run(
        [sys.executable, "-c", script, "check", "--isolated", "--runtime", "plain.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert runtime.returncode == 2 and runtime.stderr.count("\n") == 1 and "torch" in runtime.stderr, runtime.stderr


# --- the catalogue ---------------------------------------------------------------------------


def test_rules_lists_on_and_off(capsys):
    assert main(["rules"]) == 0
    rows = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()}
    assert rows["INI901"] == "on" and rows["INI903"] == "off" and rows["INI904"] == "off"


def test_rule_shows_documentation(capsys):
    assert main(["rule", "INI904"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# INI904 `unused-noqa`") and "## What it does" in out and "off by default" in out
    assert main(["rule", "INI999"]) == 2
    assert capsys.readouterr().err == "initlint: error: unknown rule 'INI999'; `initlint rules` lists them\n"


def test_server_without_pygls_is_one_line(tmp_path):
    """The static linter must not need pygls: without it, `initlint server` says what to install."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "pygls").mkdir()
    (blocker / "pygls" / "__init__.py").write_text("raise ModuleNotFoundError('no pygls here', name='pygls')\n")
    env = {"PYTHONPATH": f"{blocker}:{REPO_ROOT}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "server"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert (
        result.returncode == 2
        and result.stderr == "initlint: error: initlint server needs pygls: pip install 'initlint[lsp]'\n"
    )

"""A hostile checkout: files named like standard modules in the working directory, FIFOs and
devices named `*.py`, huge files, undecodable names, broken pyproject.toml files.

Static mode must never import a file of the checked folder (not in `-j` workers either), never
hang and never blow up its memory, and every bad input is one line, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from initlint.engine import lint_file
from initlint.project.store import SUMMARY_VERSION
from robustness_inputs import nano_gpt

#: Modules a spawned `multiprocessing` worker or its resource tracker imports at start-up.
SHADOWED = ("signal", "pickle", "socket", "subprocess", "threading", "weakref", "selectors", "struct")


def shadowing_module(name: str, marker: Path) -> str:
    """A module that leaves a marker when imported, then hands over to the real one."""
    return (
        "import importlib.util, os, sys\n"
        f"with open({str(marker)!r}, 'a') as handle:\n"
        f"    handle.write({name!r} + ' ' + str(os.getpid()) + chr(10))\n"
        f"spec = importlib.util.spec_from_file_location({name!r}, os.path.join({sysconfig.get_paths()['stdlib']!r}, {name + '.py'!r}))\n"
        "real = importlib.util.module_from_spec(spec)\n"
        f"sys.modules[{name!r}] = real\n"
        "spec.loader.exec_module(real)\n"
        "globals().update(real.__dict__)\n"
    )


@pytest.fixture
def hostile_folder(tmp_path):
    """(folder, marker): two model files beside modules that shadow the standard library."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    marker = tmp_path / "MARKER"
    for name in SHADOWED:
        (folder / f"{name}.py").write_text(shadowing_module(name, marker))
    (folder / "a.py").write_text(nano_gpt(scaled=False))
    (folder / "b.py").write_text(nano_gpt(scaled=True))
    return folder, marker


def test_the_shadowing_module_really_fires(hostile_folder):
    """The control: a spawned multiprocessing child started there does import them."""
    folder, marker = hostile_folder
    code = "import multiprocessing as m\nif __name__ == '__main__':\n    m.get_context('spawn').Process(target=print).start()\n"
    subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, timeout=120)
    assert marker.exists()


def _initlint_commands() -> list[list[str]]:
    commands = [[sys.executable, "-m", "initlint"]]
    script = shutil.which("initlint", path=os.path.dirname(sys.executable))
    if script is not None:
        commands.append([script])
    return commands


@pytest.mark.parametrize("command", _initlint_commands(), ids=lambda command: os.path.basename(command[-1]))
@pytest.mark.parametrize("extra", [[], ["--format", "sarif"], ["--fix"]], ids=["text", "sarif", "fix"])
def test_static_mode_never_imports_from_the_working_directory_with_jobs(hostile_folder, command, extra):
    folder, marker = hostile_folder
    result = subprocess.run(
        [*command, "check", "--isolated", "-j", "2", *extra, "a.py", "b.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert "INI001" in result.stdout and "Traceback" not in result.stderr
    assert not marker.exists(), marker.read_text()


def test_the_flake8_plugin_with_jobs_never_imports_from_the_working_directory(hostile_folder):
    """The `flake8` command (`python -m flake8` puts the folder on sys.path itself, before
    any plugin is loaded: that one is flake8's and Python's, see docs/robustness.md)."""
    folder, marker = hostile_folder
    flake8 = shutil.which("flake8", path=os.path.dirname(sys.executable))
    if flake8 is None:
        pytest.skip("no flake8 command beside this interpreter")
    result = subprocess.run(
        [flake8, "-j", "2", "--select", "INI", "a.py", "b.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "INI001" in result.stdout, result.stdout + result.stderr
    assert not marker.exists(), marker.read_text()


# -- files that are not regular files, or too large ---------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_and_device_links_named_py_are_refused_not_read(tmp_path):
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "random.py").symlink_to("/dev/urandom")
    (tmp_path / "model.py").write_text(nano_gpt(scaled=False))
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert any("fifo.py:1:1: INI901 cannot read: not a regular file (a FIFO)" in line for line in lines), lines
    for name in ("zero.py", "random.py"):
        assert any(f"{name}:1:1: INI901 cannot read: not a regular file (a character device)" in line for line in lines)
    assert "INI001" in result.stdout


def test_a_file_above_the_size_cap_is_refused_without_reading_it(tmp_path, monkeypatch):
    from initlint import safety

    monkeypatch.setattr(safety, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.py").write_text(nano_gpt(scaled=False))
    findings = lint_file(tmp_path / "big.py")
    assert [f.code for f in findings] == ["INI901"] and "too large" in findings[0].message


def test_a_coding_cookie_python_refuses_is_not_read_as_garbage(tmp_path):
    (tmp_path / "utf16.py").write_bytes(b"# coding: utf-16\nimport torch\nx = torch.nn.Linear(2, 2)\n")
    findings = lint_file(tmp_path / "utf16.py")
    with pytest.raises(SyntaxError):
        compile((tmp_path / "utf16.py").read_bytes(), "utf16.py", "exec")
    assert [f.code for f in findings] == ["INI901"] and "utf-16" in findings[0].message


# -- names, folders and configuration files that used to give tracebacks ----------------------


@pytest.mark.skipif(sys.platform == "darwin" or os.name == "nt", reason="the file system refuses undecodable names")
@pytest.mark.parametrize("output", ["text", "github", "sarif", "json"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path, output):
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"caf\xe9_model.py"), "wb") as handle:
        handle.write(nano_gpt(scaled=False).encode())
    environment = dict(os.environ, PYTHONIOENCODING="utf-8:strict", LC_ALL="C.UTF-8")
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", "--format", output, "."],
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
        env=environment,
    )
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr and b"INI001" in result.stdout
    if output == "sarif":
        assert b"caf%E9_model.py" in result.stdout  # the byte itself, percent-encoded
    elif output in ("text", "github"):
        assert b"caf\xe9_model.py" in result.stdout  # the name as the file system has it


BROKEN_PYPROJECTS = {
    "3,000 nested arrays": ("a = " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
    "a 5,000-digit integer": ("a = " + "9" * 5000 + "\n", "limit"),
    "base-std as a 340-digit integer": (
        "[tool.initlint]\nbase-std = " + "9" * 340 + "\n",
        "base-std: expected a positive number",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_PYPROJECTS))
def test_a_hostile_pyproject_in_a_parent_folder_is_one_line(tmp_path, case):
    text, reason = BROKEN_PYPROJECTS[case]
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "model.py").write_text(nano_gpt(scaled=False))
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", str(tmp_path / "sub")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and reason in result.stderr and "pyproject.toml" in result.stderr, (
        result.stderr
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_pyproject_toml_is_not_read(tmp_path):
    os.mkfifo(tmp_path / "pyproject.toml")
    (tmp_path / "model.py").write_text(nano_gpt(scaled=False))
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and "INI001" in result.stdout, result.stderr


def _unreadable(monkeypatch, folder: Path) -> None:
    """Make `folder` unreadable: chmod 000, or where that does not stop this user (root),
    the same PermissionError raised where the walk opens it."""
    folder.chmod(0)
    if os.geteuid() != 0:
        return
    real = os.scandir

    def scandir(path="."):
        if os.path.abspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unreadable_folder_named_on_the_command_line_is_one_line(tmp_path, monkeypatch, capsys):
    from initlint.cli import main

    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "model.py").write_text(nano_gpt(scaled=False))
    _unreadable(monkeypatch, tmp_path / "secret")
    try:
        assert main(["check", str(tmp_path / "secret")]) == 2
    finally:
        (tmp_path / "secret").chmod(0o755)
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "secret: cannot read folder: Permission denied" in error, error


def test_an_unreadable_folder_inside_a_walk_is_reported_not_skipped_silently(tmp_path, monkeypatch, capsys):
    from initlint.cli import main

    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "model.py").write_text(nano_gpt(scaled=False))
    (tmp_path / "model.py").write_text(nano_gpt(scaled=False))
    _unreadable(monkeypatch, tmp_path / "hidden")
    try:
        assert main(["check", "--isolated", "-q", str(tmp_path)]) == 1
    finally:
        (tmp_path / "hidden").chmod(0o755)
    captured = capsys.readouterr()
    assert "hidden: cannot read folder (Permission denied); its files are not checked" in captured.err
    assert "Traceback" not in captured.err and "INI001" in captured.out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_on_the_command_line_is_reported_as_such(tmp_path):
    os.mkfifo(tmp_path / "named.py")
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", str(tmp_path / "named.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr  # the only file given could not be checked
    assert "named.py:1:1: INI901 cannot read: not a regular file (a FIFO)" in result.stdout


def test_a_utf8_bom_is_still_an_ascii_compatible_encoding(tmp_path):
    """The control for the cookie check above: `utf-8-sig` (a BOM) is read as Python reads it."""
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + nano_gpt(scaled=False).encode())
    assert [f.code for f in lint_file(tmp_path / "bom.py")] == ["INI001", "INI001"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_planted_in_the_repositorys_summary_cache_does_not_hang_the_run(tmp_path):
    """The project layer's disk cache lives in the checked repository by default, where a pull
    request can put anything: a FIFO named like the entry of one of its files included. (In a
    child process: if the read blocked, only the child would hang, for the timeout.)"""
    import hashlib

    digest = hashlib.sha256(nano_gpt(scaled=False).encode()).hexdigest()
    entry = tmp_path / ".initlint_cache" / "summaries" / f"v{SUMMARY_VERSION}" / digest[:2] / f"{digest}.json"
    entry.parent.mkdir(parents=True)
    os.mkfifo(entry)
    # The cache module alone, loaded from its file: it needs nothing else of initlint.project.
    script = (
        "import importlib.util, os, sys\n"
        "from pathlib import Path\n"
        "import initlint\n"
        "where = os.path.join(os.path.dirname(initlint.__file__), 'project', 'cache.py')\n"
        "spec = importlib.util.spec_from_file_location('summary_cache', where)\n"
        "cache = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(cache)\n"
        f"print(cache.DiskCache(Path(sys.argv[1]), {SUMMARY_VERSION}).get(sys.argv[2]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / ".initlint_cache"), digest],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stdout.strip() == "None", result.stderr


def test_a_cache_folder_planted_in_the_repository_is_neither_read_nor_written(tmp_path, monkeypatch):
    """A pull request controls `.initlint_cache`: as a link it would send the summary writes
    anywhere, as a folder it could hold forged summaries. By default the cache is the user's."""
    monkeypatch.delenv("INITLINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "model.py").write_text(nano_gpt(scaled=False))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".initlint_cache").symlink_to(elsewhere, target_is_directory=True)
    findings = lint_file(repo / "pkg" / "model.py")
    assert [finding.code for finding in findings] == ["INI001", "INI001"]
    assert list(elsewhere.rglob("*")) == []
    assert list((tmp_path / "user-cache" / "initlint").rglob("*.json"))

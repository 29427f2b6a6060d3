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
        cwd=folder, capture_output=True, text=True, timeout=300,
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
        cwd=folder, capture_output=True, text=True, timeout=300,
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
        capture_output=True, text=True, timeout=300,
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

"""A release that installs: scripts/release_check.sh builds the sdist and wheel, runs
`twine check`, installs the wheel into a fresh venv (dependencies from PyPI) and runs
`initlint check examples/`, `flake8 --select INI` and the GitHub Action's steps from it.
Slow (about a minute: a build and a venv); needs the package index like the pre-commit tests."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or not all(importlib.util.find_spec(m) for m in ("build", "twine")),
    reason="needs bash, build and twine (the test extra)",
)


def test_the_built_wheel_installs_and_runs_in_a_fresh_venv():
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "release_check.sh"), sys.executable],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "release check passed: initlint-" in result.stdout


def test_action_steps_fail_when_a_step_fails(tmp_path):
    """The step runner is itself a test tool: a failing step must fail it."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "action_steps.py"),
            str(tmp_path),
            "--input",
            "install=/nonexistent/initlint.whl",
            "--input",
            "python-version=",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0 and "step Install initlint: exit" in result.stdout
    assert "step actions/setup-python@v5: not run" in result.stdout

"""The repository's own habits: what CI runs, the pre-commit config, one version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import initlint

REPO = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def _fake_tools(folder: Path, failing: str) -> Path:
    """Executables named like the CI tools that log their arguments; `failing` exits 1."""
    log = folder / "calls.log"
    for tool in ("ruff", "mypy", "vulture", "python"):
        status = 1 if tool == failing else 0
        script = folder / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\nexit {status}\n', encoding="utf-8")
        script.chmod(0o755)
    return log


@pytest.mark.skipif(shutil.which("bash") is None, reason="CI scripts are bash")
@pytest.mark.parametrize("failing", ["ruff", "mypy", "vulture", "python", "nothing"])
def test_ci_check_runs_every_step_and_fails_if_any_fails(tmp_path, failing):
    log = _fake_tools(tmp_path, failing)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", str(REPO / ".ci" / "check")], env=env, capture_output=True, text=True, timeout=60)
    calls = log.read_text(encoding="utf-8").splitlines()
    assert calls == ["ruff check .", "ruff format --check .", "mypy ", "vulture ", "python -m pytest -q"]
    if failing == "nothing":
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 1
        assert result.stderr.strip().startswith(f"failed: {failing}")


def test_ci_run_installs_the_lint_tools_and_calls_the_checks():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"pip install -e '\.\[[a-z,]*lint[a-z,]*\]' && bash \.ci/check$", ci, flags=re.M)
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {re.split(r"[=<>]", requirement)[0] for requirement in extras["lint"]} == {"ruff", "mypy", "vulture"}


def test_the_version_is_written_once():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "initlint.__version__"}
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[?(\d+\.\d+\.\d+)\]?", changelog, flags=re.M)
    assert released and released[0] == initlint.__version__, "the newest release in CHANGELOG.md is the version"


@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is a test dependency")
def test_the_repositorys_pre_commit_config_is_valid_and_runs_ruff_and_mypy():
    config = REPO / ".pre-commit-config.yaml"
    result = subprocess.run(["pre-commit", "validate-config", str(config)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = re.findall(r"^\s+- id: (\S+)", config.read_text(encoding="utf-8"), flags=re.M)
    assert {"ruff", "mypy"} <= set(hooks)

"""The pre-commit hook, run for real: `pre-commit try-repo` on this checkout, in a throw-away
git repository with a bad and a good model file.

pre-commit builds a fresh virtualenv and pip-installs this repository into it, so the test
needs the package index (for libcst and the build backend; pip's cache makes reruns quick).
Slow by this suite's standards: each of the three runs builds a hook environment (~10-15 s
here with a warm pip cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sample_models import gpt_source, tripwire_source, writer_lines

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("precommit")
    repo = root / "project"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    git("config", "user.email", "test@example.invalid", cwd=repo)
    git("config", "user.name", "initlint test", cwd=repo)
    (repo / "bad_model.py").write_text(gpt_source(), encoding="utf-8")
    (repo / "good_model.py").write_text(gpt_source(scaled=True), encoding="utf-8")
    (repo / "tripwire_model.py").write_text(tripwire_source(str(root / "IMPORTED")), encoding="utf-8")
    git("add", ".", cwd=repo)
    env = {**os.environ, "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return repo, env


def try_repo(workspace, *files: str) -> subprocess.CompletedProcess:
    repo, env = workspace
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "initlint", "--verbose", "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_fails_on_the_bad_model_without_running_it(workspace):
    result = try_repo(workspace, "bad_model.py", "tripwire_model.py")
    assert result.returncode == 1, result.stdout + result.stderr
    for line in writer_lines(gpt_source()):
        assert f"bad_model.py:{line}:" in result.stdout, result.stdout
    assert "tripwire_model.py:" in result.stdout and "Traceback" not in result.stdout
    repo, _ = workspace
    assert not (repo.parent / "IMPORTED").exists(), "the hook imported a checked file"


def test_hook_passes_on_the_good_model(workspace):
    result = try_repo(workspace, "good_model.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def test_hook_installs_without_torch(workspace, tmp_path):
    """`try-repo` throws its environment away, so install the hook the way users do (a
    `.pre-commit-config.yaml` naming this repository at its current commit) and look inside."""
    repo, env = workspace
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("this checkout is not a git repository")
    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {REPO_ROOT}\n  rev: {head.stdout.strip()}\n  hooks:\n  - id: initlint\n")
    home = tmp_path / "home"
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--files", "good_model.py"],
        cwd=repo,
        env={**env, "PRE_COMMIT_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (interpreter,) = home.glob("repo*/py_env-*/bin/python")
    probe = subprocess.run(
        [
            str(interpreter),
            "-c",
            "import importlib.util as u; print(*(u.find_spec(m) is not None for m in ('torch', 'libcst', 'initlint')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.stdout.split() == ["False", "True", "True"], probe.stderr


def test_hook_honours_excludes_and_each_subprojects_config(workspace, tmp_path):
    """pre-commit passes file names from the whole repository: `extend-exclude` still applies
    (the hook runs with --force-exclude), and a sub-project's own pyproject governs its files."""
    repo, env = workspace
    bad = gpt_source()
    (repo / "pyproject.toml").write_text('[tool.initlint]\nextend-exclude = ["generated"]\n', encoding="utf-8")
    for folder in ("generated", "sub"):
        (repo / folder).mkdir(exist_ok=True)
        (repo / folder / "bad_model.py").write_text(bad, encoding="utf-8")
    (repo / "sub" / "pyproject.toml").write_text('[tool.initlint]\nignore = ["INI001"]\n', encoding="utf-8")
    git("add", ".", cwd=repo)
    try:
        result = try_repo(workspace, "bad_model.py", "generated/bad_model.py", "sub/bad_model.py")
        assert result.returncode == 1, result.stdout + result.stderr
        reported = {line.split(":")[0] for line in result.stdout.splitlines() if ": INI001 " in line}
        assert reported == {"bad_model.py"}, result.stdout
    finally:
        git("rm", "-r", "-q", "--cached", "pyproject.toml", "generated", "sub", cwd=repo)
        shutil.rmtree(repo / "generated")
        shutil.rmtree(repo / "sub")
        (repo / "pyproject.toml").unlink()


def test_notebook_hook_reports_in_cell_coordinates(workspace):
    nbformat = pytest.importorskip("nbformat")
    repo, env = workspace
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# model"), nbformat.v4.new_code_cell(gpt_source())]
    nbformat.write(notebook, str(repo / "model.ipynb"))
    git("add", "model.ipynb", cwd=repo)
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pre_commit",
                "try-repo",
                str(REPO_ROOT),
                "initlint-jupyter",
                "--verbose",
                "--files",
                "model.ipynb",
            ],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 1, result.stdout + result.stderr
        for line in writer_lines(gpt_source()):
            assert f"model.ipynb:cell 2:{line}:9: INI001 " in result.stdout, result.stdout
    finally:
        git("rm", "-q", "--cached", "model.ipynb", cwd=repo)
        (repo / "model.ipynb").unlink()

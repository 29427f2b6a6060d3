"""Static mode, the flake8 plugin and the pre-commit hook never import or execute checked files.

The checked project is a tripwire: every module in it (a model, a sibling it imports, a package
`__init__`, a `setup.py`) writes a marker file when imported or run. Each tool runs over the
whole project; the marker must never appear. The flake8 and pre-commit parts run once those
integrations are installed (the pre-commit run builds a hook environment: ~15 s, the slowest
test here).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from initlint.cli import main
from initlint.engine import lint_files
from robustness_inputs import nano_gpt

REPO_ROOT = Path(__file__).resolve().parents[1]


def tripwire(marker: Path, name: str) -> str:
    return f"import pathlib\npathlib.Path({str(marker)!r}).joinpath({name!r}).write_text('ran')\n"


@pytest.fixture
def project(tmp_path):
    """(project folder, marker folder): models whose import or execution leaves a trace."""
    marker = tmp_path / "markers"
    marker.mkdir()
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "model.py").write_text(tripwire(marker, "model") + "import helper\n" + nano_gpt(scaled=False))
    (root / "helper.py").write_text(tripwire(marker, "helper") + "import torch.nn as nn\nLayer = nn.Linear\n")
    (root / "pkg" / "__init__.py").write_text(tripwire(marker, "pkg") + "from .layers import *\n")
    (root / "pkg" / "layers.py").write_text(
        tripwire(marker, "layers") + "from . import layers\n" + nano_gpt(scaled=True)
    )
    (root / "setup.py").write_text(tripwire(marker, "setup") + "import torch\n")
    return root, marker


def assert_nothing_ran(marker: Path) -> None:
    assert sorted(p.name for p in marker.iterdir()) == [], "a checked file was imported or executed"


def test_the_tripwire_fires_when_the_project_is_imported(project):
    """The control: importing the model really leaves the traces the other tests look for."""
    root, marker = project
    subprocess.run([sys.executable, "-c", "import model, pkg"], cwd=root, capture_output=True, timeout=60)
    assert sorted(p.name for p in marker.iterdir()) == ["helper", "layers", "model", "pkg"]


def test_the_engine_and_the_cli_in_process(project, capsys):
    root, marker = project
    before = set(sys.modules)
    assert lint_files([str(p) for p in root.rglob("*.py")], jobs=2).findings
    assert main(["check", "--isolated", str(root)]) == 1
    assert main(["check", "--isolated", "--format", "sarif", "--jobs", "2", str(root)]) == 1
    main(["explain", str(root / "model.py")])
    capsys.readouterr()
    assert_nothing_ran(marker)
    assert not {"model", "helper", "pkg", "layers"} & (set(sys.modules) - before)


def test_the_cli_process(project):
    root, marker = project
    for extra in ([], ["--format", "json"], ["--jobs", "2"], ["--fix"]):
        result = subprocess.run(
            [sys.executable, "-m", "initlint", "check", "--isolated", *extra, str(root)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=root,
        )
        assert result.returncode == 1, result.stderr
    assert_nothing_ran(marker)


def _flake8_has_plugin() -> bool:
    return any(entry.name == "INI" for entry in importlib.metadata.entry_points(group="flake8.extension"))


@pytest.mark.skipif(not _flake8_has_plugin(), reason="the flake8 plugin is not installed")
def test_flake8_with_the_plugin(project):
    root, marker = project
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "INI", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )
    assert "INI001" in result.stdout, result.stdout + result.stderr
    assert_nothing_ran(marker)


@pytest.mark.skipif(
    shutil.which("git") is None or not (REPO_ROOT / ".pre-commit-hooks.yaml").exists(),
    reason="pre-commit needs git and this repository's hook definition",
)
def test_the_pre_commit_hook(project):
    root, marker = project
    for command in (["init", "-q"], ["add", "."]):
        subprocess.run(["git", *command], cwd=root, check=True, capture_output=True, timeout=60)
    env = {**os.environ, "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "initlint", "--all-files"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1 and "INI001" in result.stdout, result.stdout + result.stderr
    assert_nothing_ran(marker)

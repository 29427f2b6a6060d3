"""Every `initlint ...` and `flake8 ...` command the README and the integration docs show runs as
written, in a project that has the files they name (model.py, src/, a notebook): no usage error,
no traceback. Commands that need torch (`--runtime`), a placeholder (`<owner>`) or that serve
forever (`initlint server` without `--help`) and synopses are left out; the release check runs the install
commands' equivalent on a built wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sample_models import gpt_source

REPO = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "docs/integrations.md", "docs/editors.md")
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def documented_commands() -> list[tuple[str, str]]:
    commands = []
    for doc in DOCS:
        for block in _FENCE.findall((REPO / doc).read_text(encoding="utf-8")):
            for line in block.splitlines():
                command = line.strip().removeprefix("$ ").removeprefix("- run: ")
                command = re.sub(r"\s+#\s.*$", "", command)
                if (
                    not re.match(r"^(initlint|flake8) ", command)
                    or "<" in command.replace(" < ", " ")
                    or "..." in command
                ):
                    continue  # not a command, a placeholder, or a synopsis like `initlint check [PATH ...]`
                if "--runtime" in command or (command.startswith("initlint server") and "--help" not in command):
                    continue
                commands.append((doc, command))
    return commands


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    root = tmp_path_factory.mktemp("docs-project")
    shutil.copytree(REPO / "examples", root / "examples")
    shutil.copytree(REPO / "examples", root / "src")
    (root / "model.py").write_text(gpt_source(), encoding="utf-8")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(gpt_source())]
    (root / "notebooks").mkdir()
    for path in (root / "train.ipynb", root / "notebooks" / "train.ipynb"):
        nbformat.write(notebook, str(path))
    return root


def test_the_docs_show_the_new_commands():
    shown = " | ".join(command for _, command in documented_commands())
    for feature in ("--diff", "--stdin-filename", ".ipynb", "initlint server --help", "flake8 --select INI"):
        assert feature in shown, feature


@pytest.mark.parametrize(("doc", "command"), documented_commands())
def test_documented_command_runs(project, doc, command):
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    result = subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode in (0, 1), f"{doc}: {command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr and "error:" not in result.stderr, f"{doc}: {command}\n{result.stderr}"

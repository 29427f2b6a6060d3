"""`initlint explain` on Jupyter notebooks: `check` reads them, so `explain` must too (a user
asks why a cell was flagged), with the cells' places in the joined code said, and a notebook
nbformat only warns about must not print that library's warnings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

IMPORTS = "import torch\nimport torch.nn as nn\n%matplotlib inline\n"
MODEL = """\
class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        return x + self.out(self.norm(x))


class Stack(nn.Module):
    def __init__(self, width=16, depth=4):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


def initlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def write_notebook(path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# a model"),
        nbformat.v4.new_code_cell(IMPORTS),
        nbformat.v4.new_code_cell(MODEL),
    ]
    nbformat.write(notebook, str(path))


def test_explain_shows_the_plan_of_a_notebook(tmp_path):
    write_notebook(tmp_path / "model.ipynb")
    result = initlint("explain", "model.ipynb", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert "Stack — layers: Layer x depth, 1 residual add(s) per block, pre-norm" in result.stdout
    # lines in the table count in the joined code cells: say where each cell starts
    assert "cell 2 from line 1, cell 3 from line 4" in result.stdout


def test_explain_on_a_folder_includes_its_notebooks(tmp_path):
    write_notebook(tmp_path / "model.ipynb")
    result = initlint("explain", ".", cwd=tmp_path)
    assert "model.ipynb" in result.stdout and "Stack" in result.stdout


def test_explain_on_a_broken_notebook_is_one_line(tmp_path):
    (tmp_path / "broken.ipynb").write_text("{not json")
    result = initlint("explain", "broken.ipynb", cwd=tmp_path)
    assert result.stdout.startswith("broken.ipynb: cannot read notebook: NotJSONError")
    assert "Traceback" not in result.stderr


def test_nbformat_warnings_do_not_reach_the_user(tmp_path):
    # A notebook an older tool wrote: nbformat 4.5 but no cell ids (nbformat warns about it).
    cell = {"cell_type": "code", "metadata": {}, "source": IMPORTS + MODEL, "outputs": [], "execution_count": None}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "old.ipynb").write_text(json.dumps(notebook))
    result = initlint("check", "-q", "old.ipynb", cwd=tmp_path)
    assert "old.ipynb:cell 1:" in result.stdout and result.stderr == ""


def test_explain_reads_stdin_as_check_does(tmp_path):
    source = IMPORTS.replace("%matplotlib inline\n", "") + MODEL
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "explain", "-"], input=source, cwd=tmp_path, capture_output=True, text=True
    )
    assert result.stdout.startswith("<stdin>\n") and "Stack — layers" in result.stdout

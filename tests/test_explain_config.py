"""`initlint explain` reads the same `[tool.initlint]` as `check`: a layer class the user maps
with `extend-layer-classes` is a residual writer in both, or explain contradicts the finding
it is meant to explain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Dense hands its weight to a compiled kernel: nothing in the code says it is a linear layer
# (a matrix product of the input with its own weight would), only the user's mapping does.
LAYERS = """\
import torch
import torch.nn as nn
from fast_kernels import dense_kernel


class Dense(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return dense_kernel(x, self.weight, self.bias)
"""

MODEL = """\
import torch.nn as nn

from layers import Dense


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.proj = Dense(width, width)

    def forward(self, x):
        return x + self.proj(self.norm(x))


class Net(nn.Module):
    def __init__(self, width=16, n_layer=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""

CONFIG = '[tool.initlint.extend-layer-classes]\n"layers.Dense" = "torch.nn.Linear"\n'


def initlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def writer_rows(explained: str) -> list[str]:
    return [line for line in explained.splitlines() if line.strip().startswith("blocks.*.proj.weight")]


def test_explain_applies_the_projects_layer_classes(tmp_path):
    (tmp_path / "net.py").write_text(MODEL)
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    assert " INI001 " in initlint("check", "-q", "net.py", cwd=tmp_path).stdout
    [row] = writer_rows(initlint("explain", "net.py", cwd=tmp_path).stdout)
    assert "residual writer" in row


def test_explain_takes_config_and_isolated_as_check_does(tmp_path):
    (tmp_path / "net.py").write_text(MODEL)
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "conf.toml").write_text(CONFIG)
    [row] = writer_rows(initlint("explain", "--config", "conf.toml", "net.py", cwd=tmp_path).stdout)
    assert "residual writer" in row
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    [row] = writer_rows(initlint("explain", "--isolated", "net.py", cwd=tmp_path).stdout)
    assert "residual writer" not in row

"""INI002's headline names the expression the user wrote. `math.sqrt(n_layer)` as the divisor
is sqrt(2) too *small*; what is sqrt(2) too large is the std it gives: the headline must say
so, whichever way the factor is written."""

from __future__ import annotations

import pytest

from initlint.cli import main

MODEL = """\
import math
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.norm_b = nn.LayerNorm(width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        x = x + self.mix(self.norm_a(x))
        return x + self.out(self.norm_b(x))


class Net(nn.Module):
    def __init__(self, width=16, n_layer=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, p in self.named_parameters():
            if name.endswith(("mix.weight", "out.weight")):
                nn.init.normal_(p, std=SCALED)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


@pytest.mark.parametrize("scaled", ["0.02 / math.sqrt(n_layer)", "0.02 * n_layer ** -0.5"])
def test_the_headline_says_the_std_is_too_large_not_the_divisor(tmp_path, monkeypatch, capsys, scaled):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(MODEL.replace("SCALED", scaled))
    main(["check", "net.py", "-q", "--isolated"])
    [line] = capsys.readouterr().out.splitlines()
    assert " INI002 " in line and "makes the std sqrt(2) too large" in line

"""The runtime table names parameters with the index of each repeated block as `*`, and keeps
the positions inside a block (the first and the last Linear of an `nn.Sequential` MLP) apart."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from initlint.runtime import verify  # noqa: E402


class Block(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Stack(nn.Module):
    def __init__(self, width: int = 8, depth: int = 3, cloned: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(16, width)
        if cloned:  # copies made without a constructor call (`_get_clones`)
            self.layers = nn.ModuleList([copy.deepcopy(Block(width)) for _ in range(depth)])
        else:
            self.layers = nn.ModuleList([Block(width) for _ in range(depth)])
        self.stages = nn.ModuleList()
        for stage_width in (width, 2 * width):  # blocks of one loop: copies, whatever their width
            self.stages.append(nn.Sequential(nn.Linear(width, stage_width), nn.Linear(stage_width, width)))
        self.head = nn.Linear(width, 16)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        for stage in self.stages:
            x = x + stage(x)
        return self.head(x)


def patterns(**config) -> list[str]:
    report = verify(lambda: Stack(**config), materialize=False, label="Stack")
    (model,) = report.models
    return [row.pattern for row in model.rows]


@pytest.mark.parametrize("cloned", [False, True], ids=["built-in-a-loop", "deep-copied"])
def test_positions_inside_a_block_stay_apart(cloned):
    found = patterns(cloned=cloned)
    assert "layers.*.mlp.0.weight" in found and "layers.*.mlp.2.weight" in found
    assert not any("mlp.*" in pattern for pattern in found)


def test_the_blocks_one_loop_builds_are_one_pattern_whatever_their_widths():
    found = patterns()
    assert "stages.*.0.weight" in found and "stages.*.1.weight" in found
    assert not any(pattern.startswith("stages.0.") for pattern in found)


def test_the_table_shows_each_position_on_its_own_line():
    report = verify(lambda: Stack(), materialize=False, label="Stack")
    table = report.models[0].table()
    assert "layers.*.mlp.0.weight" in table and "layers.*.mlp.2.weight" in table


def test_the_measured_column_appears_only_when_tensors_were_measured():
    requested_only = verify(lambda: Stack(), materialize=False, label="Stack").models[0].table()
    header = requested_only.splitlines()[0].split()
    assert "measured" not in header and "requested" in header
    assert "--materialize also builds and measures real tensors" in requested_only.splitlines()[-1]
    measured = verify(lambda: Stack(), materialize=True, label="Stack").models[0].table()
    assert "measured" in measured.splitlines()[0].split()
    assert "--materialize" not in measured

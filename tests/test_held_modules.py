"""Writers of branches a block holds that another list registered first
(`analysis/held_modules.py`): read where each block is handed its own, named as PyTorch names
them, and left alone where every block holds the same module."""

from __future__ import annotations

from pathlib import Path

from initlint.config import Settings
from initlint.engine import lint_source

BAD = (Path(__file__).parent / "idioms" / "reversible_branches_held_from_pair_list" / "bad.py").read_text(
    encoding="utf-8"
)
PAIRS = """        self.pairs = nn.ModuleList(
            [nn.ModuleList([PreNormed(width, Mixer(width)), PreNormed(width, MLP(width))]) for _ in range(depth)]
        )
        self.blocks = nn.ModuleList([Coupling(f, g) for f, g in self.pairs])"""


def messages(source: str) -> list[str]:
    return sorted(finding.message for finding in lint_source(source, "model.py", Settings(select=("INI0",))))


def test_writers_are_named_where_pytorch_registers_them():
    assert messages(BAD) == [
        "residual writer `pairs.*.0.body.proj` init has no depth factor 1/sqrt(depth)",
        "residual writer `pairs.*.1.body.down` init has no depth factor 1/sqrt(depth)",
    ]


def test_one_pair_held_by_every_block_is_not_read_as_one_per_block():
    assert PAIRS in BAD
    shared = BAD.replace(
        PAIRS,
        """        self.pair = nn.ModuleList([PreNormed(width, Mixer(width)), PreNormed(width, MLP(width))])
        self.blocks = nn.ModuleList([Coupling(*self.pair) for _ in range(depth)])""",
    )
    assert messages(shared) == []


def test_an_init_through_the_blocks_reaches_the_registered_writers():
    scaled = BAD.replace("import torch\n", "import math\n\nimport torch\n", 1).replace(
        PAIRS,
        PAIRS
        + """
        for block in self.blocks:
            nn.init.normal_(block.f.inner.body.proj.weight, std=0.02 / math.sqrt(depth))
            nn.init.normal_(block.g.inner.body.down.weight, std=0.02 / math.sqrt(depth))""",
    )
    assert messages(scaled) == []

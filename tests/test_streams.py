"""N over every list one stream runs through (`analysis/streams.py`), and only over those."""

from __future__ import annotations

from pathlib import Path

from initlint.config import Settings
from initlint.engine import lint_source

BAD = (Path(__file__).parent / "idioms" / "stream_through_several_lists" / "bad.py").read_text(encoding="utf-8")
LOOPS = """        for block in self.low:
            x = block(x)
        x = self.mid_norm(x)
        for block in self.high:
            x = block(x)
        return x"""


def messages(source: str) -> list[str]:
    return [finding.message for finding in lint_source(source, "model.py", Settings(select=("INI001",)))]


def test_a_stream_handed_from_one_list_to_the_next_owes_the_adds_of_both():
    assert LOOPS in BAD
    found = messages(BAD)
    assert found and all(message.endswith("no depth factor 1/sqrt(2 * n_low + 2 * n_high)") for message in found)


def test_a_list_run_over_another_value_is_another_stream():
    # The lower list encodes a memory the upper list never adds into: two streams, N each.
    separate = BAD.replace(
        LOOPS,
        """        memory = self.mid_norm(x)
        for block in self.low:
            memory = block(memory)
        for block in self.high:
            x = block(x)
        return x + memory""",
    )
    found = messages(separate)
    assert found and all(message.endswith("no depth factor 1/sqrt(2 * n_low)") for message in found)


def test_a_name_rebound_afresh_between_the_lists_starts_a_new_stream():
    fresh = BAD.replace("        x = self.mid_norm(x)\n", "        x = self.mid_norm(memory)\n").replace(
        "def forward(self, x):\n        for block in self.low",
        "def forward(self, x, memory):\n        for block in self.low",
    )
    found = messages(fresh)
    assert found and all(message.endswith("no depth factor 1/sqrt(2 * n_low)") for message in found)


def test_a_list_handed_the_output_of_another_as_memory_runs_its_own_stream():
    # The upper list carries `y` and reads the lower list's output beside it (cross-attention
    # memory): the lower list's adds are not into `y`.
    cross = BAD.replace(
        LOOPS,
        """        for block in self.low:
            x = block(x)
        y = self.mid_norm(memory)
        for block in self.high:
            y = block(y, x)
        return y""",
    ).replace(
        "def forward(self, x):\n        for block in self.low",
        "def forward(self, x, memory):\n        for block in self.low",
    )
    cross = cross.replace(
        "    def forward(self, x):\n        x = x + self.attn",
        "    def forward(self, x, context=None):\n        x = x + self.attn",
    )
    found = messages(cross)
    assert found and not any("n_low + " in message for message in found)


def test_a_list_run_again_and_again_owes_the_adds_of_every_run():
    # `for _ in range(self.repeats): for block in self.blocks: x = block(x)`: shared weights, but
    # each run adds the blocks' branches into the stream again.
    repeated = (Path(__file__).parent / "idioms" / "block_list_run_repeatedly" / "bad.py").read_text(encoding="utf-8")
    found = messages(repeated)
    assert len(found) == 2 and all(message.endswith("1/sqrt(2 * per_repeat*repeats)") for message in found)


SIDE_BY_SIDE = (Path(__file__).parent / "idioms" / "branch_blocks_run_side_by_side" / "good.py").read_text(
    encoding="utf-8"
)
FUSION_LOOP = """            tokens = torch.cat((x[:, i : i + 1], x), dim=1)
            tokens = fusion(tokens)
            outs.append(head(tokens[:, 0]))"""


def test_fusion_blocks_handed_one_another_s_output_through_another_name_chain():
    # `out = fusion(x); x = out`: each block takes what the one before returned, so the list is
    # a depth stack and its writers owe a factor.
    assert FUSION_LOOP in SIDE_BY_SIDE and not messages(SIDE_BY_SIDE)
    chained = SIDE_BY_SIDE.replace(
        FUSION_LOOP,
        """            out = fusion(x)
            x = out
            outs.append(head(x[:, 0]))""",
    )
    assert messages(chained) == ["residual writer `fusion.*.mix` init std 0.02 has no depth factor 1/sqrt(branches)"]


def test_fusion_blocks_also_applied_outside_their_loop_may_chain():
    # `self.fusion[0](x)` before the loop hands the first block the stream the others add to.
    outside = SIDE_BY_SIDE.replace("        outs = []\n", "        x = self.fusion[0](x)\n        outs = []\n")
    found = messages(outside)
    assert found and all(message.startswith("residual writer `fusion.*.mix`") for message in found)


def test_a_repeat_loop_that_reads_its_counter_is_no_plain_repeat():
    # `for r in range(n)` whose body reads `r`: not the same list run again and again unchanged.
    repeated = (Path(__file__).parent / "idioms" / "block_list_run_repeatedly" / "bad.py").read_text(encoding="utf-8")
    counted = repeated.replace("                x = block(x)\n", "                x = block(x) * r\n").replace(
        "for _ in range(self.repeats)", "for r in range(self.repeats)"
    )
    found = messages(counted)
    assert len(found) == 2 and all(message.endswith("1/sqrt(2 * per_repeat)") for message in found)


IN_STEP = """import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(self.qkv(x)[..., : x.shape[-1]])


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Encoder(nn.Module):
    def __init__(self, dim=64, n_blocks=6):
        super().__init__()
        self.n_blocks = n_blocks
        self.attn_norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(n_blocks)])
        self.attns = nn.ModuleList([Attention(dim) for _ in range(n_blocks)])
        self.ff_norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(n_blocks)])
        self.ffs = nn.ModuleList([FeedForward(dim) for _ in range(n_blocks)])

    def forward(self, x):
        for i in range(self.n_blocks):
            x = x + self.attns[i](self.attn_norms[i](x))
            x = x + self.ffs[i](self.ff_norms[i](x))
        return x
"""


def test_lists_walked_in_step_by_one_loop_count_each_add_once():
    # attns[i] and ffs[i] are one layer's two branches: the loop body adds twice per layer, and
    # both lists see those same two adds; N is 2 * n_blocks, not that once per list.
    found = messages(IN_STEP)
    assert len(found) == 2 and all(message.endswith("no depth factor 1/sqrt(2 * n_blocks)") for message in found)

"""Model sources shared by the integration tests (CLI, flake8, pre-commit, noqa, reporters).

`gpt_source(scaled=False)` is a small GPT-2 style model whose two residual writers
(`self.c_proj = nn.Linear(...)` in the attention and in the MLP) get the generic std 0.02 and no
depth factor: INI001 reports each at the line that creates it. `gpt_source(scaled=True)` adds
the GPT-2 recipe (a `named_parameters()` loop drawing `c_proj.weight` with
0.02 / sqrt(2 * n_layer)) and is clean.
"""

from __future__ import annotations

UNSCALED_INIT = """\
    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
"""

SCALED_LOOP = """\
        for name, param in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
"""

GPT_TEMPLATE = '''\
"""A tiny GPT for the initlint integration tests."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F


@dataclass
class Config:
    vocab_size: int = 512
    context: int = 64
    n_layer: int = 6
    n_head: int = 4
    n_embd: int = 128


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd){attn_comment}

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.act = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd){mlp_comment}

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = SelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = FeedForward(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class TinyGPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.context, config.n_embd)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.apply(self._init_weights)
{scaling}
{init}
    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))
'''

WRITER_LINE_TEXT = "self.c_proj = nn.Linear("


def gpt_source(scaled: bool = False, attn_comment: str = "", mlp_comment: str = "") -> str:
    """The model; `*_comment` is appended to a writer's line (e.g. `"  # noqa: INI001"`)."""
    return GPT_TEMPLATE.format(
        scaling=SCALED_LOOP if scaled else "",
        init=UNSCALED_INIT,
        attn_comment=attn_comment,
        mlp_comment=mlp_comment,
    )


def writer_lines(source: str) -> list[int]:
    """1-based lines that create a residual writer (where INI001 points)."""
    return [number for number, line in enumerate(source.splitlines(), 1) if WRITER_LINE_TEXT in line]


#: LibCST cannot parse it (nor can `ast`): a deterministic INI901, independent of the analysis.
UNPARSEABLE = "import torch.nn as nn\n\n\nclass Broken(nn.Module:\n    pass\n"

#: A file initlint parses and finds nothing in, whatever the rules (no module subclass).
PLAIN = "import torch\n\n\ndef double(x):\n    return torch.cat([x, x])\n"


def tripwire_source(marker: str) -> str:
    """A model file that writes `marker` if anything imports or runs it."""
    return (
        "import pathlib\n"
        f"pathlib.Path({marker!r}).write_text('imported')\n\n"
        + gpt_source().split('"""A tiny GPT for the initlint integration tests."""\n', 1)[1]
    )

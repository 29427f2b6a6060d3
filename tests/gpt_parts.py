"""Building blocks for the analysis tests: a GPT whose parts each test swaps.

`gpt(...)` assembles a whole model file (attention, MLP, block, model with an init section) so
each test reads as "nanoGPT, but with <this> init" and is parsed for real by LibCST.
"""

from __future__ import annotations

import textwrap

ATTENTION = """
class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = {linear}(config.n_embd, 3 * config.n_embd)
        self.c_proj = {linear}(config.n_embd, config.n_embd){attn_mark}

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
"""

MLP = """
class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = {linear}(config.n_embd, 4 * config.n_embd)
        self.c_proj = {linear}(4 * config.n_embd, config.n_embd){mlp_mark}

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))
"""

BLOCK = """
class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x
"""

MODEL = """
class GPT({base}):
    def __init__(self, config):
        super().__init__({super_args})
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
{init_call}
{init_function}
    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()
"""

HEADER = """import math

import torch
import torch.nn as nn
import torch.nn.functional as F
{imports}
"""


def gpt(
    init_call: str = "",
    init_function: str = "",
    *,
    block: str = BLOCK,
    attention: str = ATTENTION,
    mlp: str = MLP,
    linear: str = "nn.Linear",
    base: str = "nn.Module",
    super_args: str = "",
    imports: str = "",
    marks: bool = False,
    attn_comment: str = "",
    mlp_comment: str = "",
) -> str:
    """A GPT model file. With `marks`, the writer lines end with `# expect: INI001`; the
    `*_comment`s are appended to the attention / MLP writer lines (e.g. `"  # noqa: INI001"`)."""
    mark = "  # expect: INI001" if marks else ""
    parts = [
        HEADER.format(imports=imports),
        attention.format(linear=linear, attn_mark=mark + attn_comment),
        mlp.format(linear=linear, mlp_mark=mark + mlp_comment),
        block,
        MODEL.format(
            base=base,
            super_args=super_args,
            init_call=textwrap.indent(textwrap.dedent(init_call), " " * 8),
            init_function=textwrap.indent(textwrap.dedent(init_function), " " * 4),
        ),
    ]
    return "\n".join(parts)


GENERIC_INIT = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
"""

"""INI003: a residual branch divided or multiplied by a depth/width constant in forward."""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import scale_atoms, stack_scaling
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import describe_add, describe_op, short, writer_pattern



# Whole small models; every line ending in `# expect: CODE` must be reported, nothing else.
BAD_DOUBLE_SCALING = '''
import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)).square())


class Block(nn.Module):
    def __init__(self, dim, n_layer):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)
        self.branch_scale = 1.0 / math.sqrt(2 * n_layer)

    def forward(self, x):
        x = x + self.attn(self.norm1(x)) * self.branch_scale  # expect: INI003
        x = x + self.mlp(self.norm2(x)) * self.branch_scale  # expect: INI003
        return x


class Model(nn.Module):
    def __init__(self, vocab, dim=512, n_layer=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim, n_layer) for _ in range(n_layer)])
        self.norm = nn.LayerNorm(dim)
        for name, param in self.named_parameters():
            if param.dim() < 2:
                continue
            std = 0.02 / math.sqrt(2 * n_layer) if name.endswith(("out.weight", "down.weight")) else 0.02
            nn.init.normal_(param, std=std)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.embed.weight.t()
'''

GOOD_LEARNED_GATE_AND_PER_LAYER = '''
import torch
import torch.nn as nn


class LayerScale(nn.Module):
    def __init__(self, dim, init_value=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(init_value * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class Block(nn.Module):
    def __init__(self, dim, layer_id):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)
        self.ls1 = LayerScale(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.init_std = 0.02 / (2 * (layer_id + 1)) ** 0.5

    def init_weights(self):
        nn.init.trunc_normal_(self.mix.weight, std=0.02)
        nn.init.trunc_normal_(self.fc1.weight, std=0.02)
        nn.init.trunc_normal_(self.fc2.weight, std=self.init_std)

    def forward(self, x):
        x = x + self.ls1(self.mix(self.norm1(x)))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x))))


class Net(nn.Module):
    def __init__(self, dim=192, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, i) for i in range(depth)])
        for block in self.blocks:
            block.init_weights()

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
'''

class RuntimeResidualScaling(Rule):
    code = "INI003"
    name = "runtime-residual-scaling"
    summary = "A residual branch is scaled by a depth or width constant in forward instead of (or on top of) its init."
    docs = """
## What it does
Reports a constant built from the depth or width (`/ math.sqrt(2 * self.n_layer)`,
`* self.residual_scale`) that multiplies a residual writer's output on its way into the stream,
inside `forward`. The message says whether the writer's init is also depth-scaled.

## Why is this bad?
GPT-2's recipe is a one-time scale of the initial weights. Dividing the branch at run time as well
scales it twice (the stream then barely moves at initialisation: its variance after the last block
drops by the same factor again), and a runtime gate alone also shrinks the gradient reaching the
writer for the whole of training, which the init scale does not.

## Example
```python
def forward(self, x):
    return self.c_proj(y) / math.sqrt(2 * self.n_layer)
```

## Use instead
```python
def forward(self, x):
    return self.c_proj(y)   # and scale c_proj's init by 1/sqrt(2 * n_layer)
```
Unit-scaling / u-muP models that scale residual branches at run time on purpose are not reported.

## Fix safety
No automatic fix: removing the factor changes the model's function.
"""
    good_examples = (GOOD_LEARNED_GATE_AND_PER_LAYER,)
    bad_examples = (BAD_DOUBLE_SCALING,)

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        reported: set[int] = set()
        for stack in analysis.stacks:
            for writer in stack.writers:
                for scale in writer.ref.scales:
                    if not scale_atoms(analysis, scale.factor) or id(scale.node) in reported:
                        continue
                    reported.add(id(scale.node))
                    weight = writer.weight
                    final = final_init(weight) if weight is not None else None
                    scaling = stack_scaling(analysis, stack, final.std) if final is not None and final.certain else None
                    if scaling is not None and scaling.has_depth_factor:
                        verdict = f"its init is already depth-scaled ({describe_op(analysis, final.op)}): the branch is scaled twice"
                    elif scaling is not None and scaling.kind == "none":
                        verdict = f"its init is not depth-scaled ({describe_op(analysis, final.op)}): GPT-2's recipe is a one-time init scale, not a runtime gate"
                    else:
                        verdict = "initlint could not determine its init"
                    yield Violation(
                        scale.node,
                        f"`{short(analysis.code(scale.node), 60)}` scales the output of residual writer `{writer_pattern(stack, writer)}` "
                        f"at run time ({describe_add(analysis, writer.add)}); {verdict}",
                        {"layer": writer_pattern(stack, writer)},
                    )

"""INI002: depth scaling by sqrt(L) where the stack has two residual adds per block."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import stack_scaling
from initlint.rules.base import FixSpec, Rule, Violation
from initlint.rules.evidence import count_adds, describe_op, short, writer_pattern



# Whole small models; every line ending in `# expect: CODE` must be reported, nothing else.
BAD_ISINSTANCE_BRANCH = '''
import math

import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(x.size(-1), dim=2)
        weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.c_proj(weights @ v)


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return self.c_proj(nn.functional.gelu(self.c_fc(x)))


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


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=self.config.initializer_range)
        if isinstance(module, (SelfAttention, FeedForward)):
            nn.init.normal_(
                module.c_proj.weight,
                std=self.config.initializer_range / math.sqrt(self.config.n_layer),  # expect: INI002
            )

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()
'''

GOOD_PARALLEL_BLOCK = '''
import math

import torch
import torch.nn as nn


class ParallelBlock(nn.Module):
    """Attention and MLP read the same normalised input and are added in one step: N = n_layer."""

    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_out = nn.Linear(dim, dim)
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)

    def attention(self, h):
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        return self.attn_out(torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))

    def forward(self, x):
        h = self.ln(x)
        return x + self.attention(h) + self.fc_out(torch.nn.functional.gelu(self.fc_in(h)))


class ParallelGPT(nn.Module):
    def __init__(self, vocab, dim=256, n_layer=24):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([ParallelBlock(dim) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(dim)
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("attn_out.weight", "fc_out.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(n_layer))

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
'''

def double_the_depth(analysis: Analysis, power: cst.CSTNode) -> FixSpec | None:
    """`math.sqrt(n_layer)` -> `math.sqrt(2 * n_layer)`; `n_layer ** -0.5` -> `(2 * n_layer) ** -0.5`."""
    if isinstance(power, cst.Call) and power.args:
        inner = power.args[0].value
        text = analysis.code(inner)
        simple = isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or bool(inner.lpar)
        replacement = f"2 * {text}" if simple else f"2 * ({text})"
    elif isinstance(power, cst.BinaryOperation) and isinstance(power.operator, cst.Power):
        inner = power.left
        # A node's position excludes its own parentheses: keep them and edit inside.
        bare = analysis.code(inner.with_changes(lpar=[], rpar=[]))
        replacement = f"2 * {bare}" if inner.lpar else f"(2 * {bare})"
    else:
        return None
    return FixSpec(f"count two residual adds per block: {replacement}", ((inner, replacement),), safe=False)


class DepthFactorMissing2x(Rule):
    code = "INI002"
    name = "depth-factor-missing-2x"
    summary = "Residual writers are scaled by 1/sqrt(n_layer) although each block adds two branches (N = 2 * n_layer)."
    docs = """
## What it does
Reports the std expression of a residual writer's init that divides by `sqrt(n_layer)` when the
block it belongs to adds two branches into the residual stream (attention and MLP), found from the
block's `forward`. Reported at the `sqrt(...)` / `** -0.5` that introduces the depth.

## Why is this bad?
GPT-2 scales by 1/sqrt(N) where N counts residual *adds*, not blocks: a sequential pre-norm block
adds twice, so N = 2 * n_layer. With N = n_layer every write is sqrt(2) too large and the stream's
variance after the last block doubles relative to the recipe. A parallel block (attention and MLP
added in one statement) has N = n_layer and is not reported.

## Example
```python
std = 0.02 / math.sqrt(config.n_layer)
```

## Use instead
```python
std = 0.02 / math.sqrt(2 * config.n_layer)
```

## Fix safety
An unsafe fix (`--fix --unsafe-fixes`) puts the `2 *` inside the reported expression. Unsafe
because it changes the model's initial weights: that is the point, but review it.
"""
    good_examples = (GOOD_PARALLEL_BLOCK,)
    bad_examples = (BAD_ISINSTANCE_BRANCH,)

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        # One finding per std expression, naming every writer it scales.
        found: dict[int, tuple] = {}
        for stack in analysis.stacks:
            if stack.adds_per_block != 2 or not stack.prenorm:
                continue
            for writer in stack.writers:
                weight = writer.weight
                final = final_init(weight) if weight is not None else None
                if final is None or not final.certain:
                    continue
                scaling = stack_scaling(analysis, stack, final.std)
                if scaling.kind != "sqrt_l" or scaling.power is None:
                    continue
                entry = found.setdefault(id(scaling.power.node), (scaling, stack, final, []))
                if writer_pattern(stack, writer) not in entry[3]:
                    entry[3].append(writer_pattern(stack, writer))
        for scaling, stack, final, writers in found.values():
            depth = scaling.atom
            names = ", ".join(f"`{name}`" for name in writers)
            yield Violation(
                scaling.power.node,
                f"`{short(analysis.code(scaling.power.node), 50)}` scales residual writer{'s' if len(writers) > 1 else ''} "
                f"{names} by 1/sqrt({depth}) ({describe_op(analysis, final.op)}), but {stack.block.type_name} has "
                f"{count_adds(analysis, stack)}: N = 2 * {depth}, so each write is sqrt(2) too large; use sqrt(2 * {depth})",
                {"layers": writers},
                double_the_depth(analysis, scaling.power.node),
            )

"""INI001: a residual writer of a pre-norm stack whose final init has no depth factor."""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import scale_atoms, stack_scaling
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import (
    dead_depth_scaling,
    describe_add,
    describe_op,
    misdirected_depth_scaling,
    overwritten_depth_scaling,
    residual_adds,
    writer_pattern,
)


def has_runtime_depth_scale(analysis: Analysis, writer) -> bool:
    return any(scale_atoms(analysis, scale.factor) for scale in writer.ref.scales)



# Whole small models; every line ending in `# expect: CODE` must be reported, nothing else.
BAD_NO_INIT_AT_ALL = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.wqkv(x).view(b, t, 3, self.n_heads, -1).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, d))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)  # expect: INI001
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_heads)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, 4 * dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab_size, dim, n_layers, n_heads):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(Block(dim, n_heads) for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))
'''

BAD_HF_GENERIC_INIT = '''
import torch.nn as nn
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny"

    def __init__(self, vocab_size=256, hidden_size=64, num_hidden_layers=4, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.initializer_range = initializer_range


class TinyAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.qkv_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size)  # expect: INI001

    def forward(self, hidden_states):
        query, key, value = self.qkv_proj(hidden_states).chunk(3, dim=-1)
        weights = (query @ key.transpose(-1, -2)).softmax(-1)
        return self.o_proj(weights @ value), weights


class TinyMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.up_proj = nn.Linear(config.hidden_size, 4 * config.hidden_size)
        self.act = nn.GELU()
        self.down_proj = nn.Linear(4 * config.hidden_size, config.hidden_size)  # expect: INI001

    def forward(self, hidden_states):
        return self.down_proj(self.act(self.up_proj(hidden_states)))


class TinyLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(config.hidden_size)
        self.self_attn = TinyAttention(config)
        self.post_attention_layernorm = nn.LayerNorm(config.hidden_size)
        self.mlp = TinyMLP(config)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.self_attn(hidden_states)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        return residual + hidden_states


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([TinyLayer(config) for _ in range(config.num_hidden_layers)])
        self.norm = nn.LayerNorm(config.hidden_size)
        self.post_init()

    def forward(self, input_ids):
        hidden_states = self.embed_tokens(input_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return self.norm(hidden_states)
'''

GOOD_FLAG_SET_BY_PARENT = '''
import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y)


class Mlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = Mlp(width)
        for residual_writer in (self.attn.proj, self.mlp.fc2):
            setattr(residual_writer, "RESIDUAL_SCALE", True)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class Model(nn.Module):
    def __init__(self, vocab, width=256, depth=12, heads=4):
        super().__init__()
        self.depth = depth
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            std = 0.02
            if getattr(module, "RESIDUAL_SCALE", False):
                std = std / math.sqrt(2 * self.depth)
            nn.init.normal_(module.weight, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
'''

GOOD_ZERO_INIT_AND_POST_NORM = '''
import torch.nn as nn


class EncoderLayer(nn.Module):
    """Post-norm (BERT-style): the depth rule does not apply."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff_in = nn.Linear(d_model, 4 * d_model)
        self.ff_out = nn.Linear(4 * d_model, d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
        x = self.norm1(x + self.attn(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.ff_out(self.ff_in(x).relu()))


class Encoder(nn.Module):
    def __init__(self, d_model=128, n_heads=4, n_layers=6):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(d_model, n_heads) for _ in range(n_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class PreNormBlock(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.fc_in = nn.Linear(d_model, 4 * d_model)
        self.fc_out = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        return x + self.fc_out(self.fc_in(self.norm(x)).relu())


class ZeroInitStack(nn.Module):
    """Writers start at zero: each block begins as the identity, a deliberate scheme."""

    def __init__(self, d_model=128, n_layers=6):
        super().__init__()
        self.blocks = nn.ModuleList([PreNormBlock(d_model) for _ in range(n_layers)])
        for block in self.blocks:
            nn.init.normal_(block.fc_in.weight, std=0.02)
            nn.init.zeros_(block.fc_out.weight)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
'''

class UnscaledResidualProjection(Rule):
    code = "INI001"
    name = "unscaled-residual-projection"
    summary = "A layer that writes into the residual stream is initialised without a depth factor."
    docs = """
## What it does
Finds the layers whose output is added into the residual stream of a pre-norm transformer (the
attention output projection and the MLP down projection, found by following `forward`), works out
the init each one really ends with (constructor defaults, `self.apply(...)`, `post_init()`,
`named_parameters()` loops and their name tests, direct `nn.init` calls, in order), and reports a
writer whose final std does not shrink with depth. That includes a writer nothing initialises (so
PyTorch's default applies) and scaling code that exists but never reaches the layer (a name test
that matches nothing, a special init overwritten by a later generic one).

## Why is this bad?
Each block adds two branches into the stream. With every branch drawn at the same std, the stream's
variance grows with depth (v = 1 + 2L·σ²); GPT-2 (Radford et al. 2019, sec. 2.3) scales the writers
by 1/sqrt(N) with N = 2·n_layer so the total stays O(1). Without it deep models start with an
exploding residual stream and train unstably.

## Example
```python
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.bias"):          # never the writer's weight
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
```

## Use instead
```python
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.weight"):
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
```
Zero-initialised writers, per-layer `1/sqrt(2(l+1))`, `1/L` small init, DeepNorm and muP are
deliberate schemes and are not reported. Post-norm stacks (`norm(x + f(x))`) are not reported.

## Fix safety
No automatic fix: where the scaling belongs depends on how the model is initialised.
"""
    good_examples = (GOOD_FLAG_SET_BY_PARENT, GOOD_ZERO_INIT_AND_POST_NORM,)
    bad_examples = (BAD_NO_INIT_AT_ALL, BAD_HF_GENERIC_INIT,)

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        verdicts: dict[int, list] = {}
        for stack in analysis.stacks:
            if stack.root.uncalled_init:
                continue  # the model is initialised by code outside this construction path
            for writer in stack.writers:
                weight = writer.weight
                created = writer.node.created_at
                if weight is None or created is None or not writer.add.prenorm or writer.add.gated:
                    continue
                final = final_init(weight)
                if not final.certain or has_runtime_depth_scale(analysis, writer):
                    verdicts.setdefault(id(created), []).append(None)
                    continue
                scaling = stack_scaling(analysis, stack, final.std)
                if scaling.kind != "none":
                    verdicts.setdefault(id(created), []).append(None)
                    continue
                found_by = "" if writer.ref.found_by == "data flow" else " (found by its name: the data flow into it could not be followed)"
                message = (
                    f"residual writer `{writer_pattern(stack, writer)}`{found_by} is added into the stream "
                    f"({describe_add(analysis, writer.add)}) but its weight ends with "
                    f"{describe_op(analysis, final.op)}: no depth factor (expected std/sqrt({residual_adds(stack)}))"
                    f"{overwritten_depth_scaling(analysis, weight) or dead_depth_scaling(analysis) or misdirected_depth_scaling(analysis, stack)}"
                )
                verdicts.setdefault(id(created), []).append(Violation(created, message, {"layer": writer_pattern(stack, writer)}))
        for found in verdicts.values():
            if all(v is not None for v in found):
                yield found[0]

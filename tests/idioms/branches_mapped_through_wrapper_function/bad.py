"""`forward` hands each branch module through a function of the file before calling it: one that
gives the module back unchanged, or one that gives back a closure running it under activation
checkpointing, chosen by a flag (`wrap = checkpointed if flag else unchanged`, then
`attn, ff = map(wrap, (attn, ff))`). Either way the branch runs and is added to the stream;
nothing scales the writers."""
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


def unchanged(module, *rest):
    return module


def checkpointed(module):
    def run(*inputs):
        if not any(t.requires_grad for t in inputs):
            return module(*inputs)
        return checkpoint(module, *inputs, use_reentrant=False)

    return run


class Normed(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = inner

    def forward(self, x, *args):
        return self.inner(self.norm(x), *args)


class SelfAttention(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x, mask=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


class GatedMLP(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.w_in = nn.Linear(width, 2 * hidden, bias=False)
        self.w_out = nn.Linear(hidden, width, bias=False)  # expect: INI001

    def forward(self, x):
        a, b = self.w_in(x).chunk(2, dim=-1)
        return self.w_out(a * F.silu(b))


class Encoder(nn.Module):
    def __init__(self, width, layers, save_memory=False):
        super().__init__()
        self.save_memory = save_memory
        self.pairs = nn.ModuleList(
            [
                nn.ModuleList([Normed(width, SelfAttention(width)), Normed(width, GatedMLP(width, 3 * width))])
                for _ in range(layers)
            ]
        )
        self.final = nn.LayerNorm(width)

    def forward(self, x, mask=None):
        wrap = checkpointed if self.training and self.save_memory else unchanged
        for attn, ff in self.pairs:
            attn, ff = map(wrap, (attn, ff))
            x = attn(x, mask) + x
            x = ff(x) + x
        return self.final(x)

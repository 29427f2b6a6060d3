"""Each layer hands back a new pair tensor in place of the one it was given (`return seq,
update`): nothing is added into `pair`, so it is no stream and its projection writes none."""
import torch
import torch.nn as nn


class OuterUpdate(nn.Module):
    def __init__(self, d_seq, d_pair, d_hid=16):
        super().__init__()
        self.proj_in = nn.Linear(d_seq, 2 * d_hid)
        self.proj_out = nn.Linear(d_hid * d_hid, d_pair)

    def forward(self, s):
        left, right = self.proj_in(s).chunk(2, dim=-1)
        outer = torch.einsum("bic,bjd->bijcd", left, right)
        return self.proj_out(outer.flatten(-2))


class FeedForward(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)
        nn.init.zeros_(self.down.weight)

    def forward(self, s):
        return self.down(torch.relu(self.up(s)))


class PairLayer(nn.Module):
    def __init__(self, d_seq, d_pair):
        super().__init__()
        self.norm_s = nn.LayerNorm(d_seq)
        self.ff = FeedForward(d_seq)
        self.norm_outer = nn.LayerNorm(d_seq)
        self.outer = OuterUpdate(d_seq, d_pair)

    def forward(self, seq, pair, mask=None):
        seq = seq + self.ff(self.norm_s(seq))
        update = self.outer(self.norm_outer(seq))
        return seq, update


class PairEncoder(nn.Module):
    def __init__(self, d_seq=64, d_pair=32, n_layers=12):
        super().__init__()
        self.layers = nn.ModuleList([PairLayer(d_seq, d_pair) for _ in range(n_layers)])

    def forward(self, seq, pair):
        for layer in self.layers:
            seq, pair = layer(seq, pair)
        return seq, pair

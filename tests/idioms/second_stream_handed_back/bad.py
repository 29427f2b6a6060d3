"""Each layer updates a token stream and a pair stream and hands both back (`return seq, pair`);
the outer-product update of the pair stream reads the normalised token stream and its writer keeps
PyTorch's default init, while the token writers are zero-initialised."""
import torch
import torch.nn as nn


class OuterUpdate(nn.Module):
    def __init__(self, d_seq, d_pair, d_hid=16):
        super().__init__()
        self.proj_in = nn.Linear(d_seq, 2 * d_hid)
        self.proj_out = nn.Linear(d_hid * d_hid, d_pair)  # expect: INI001

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
        pair = pair + self.outer(self.norm_outer(seq))
        return seq, pair


class PairEncoder(nn.Module):
    def __init__(self, d_seq=64, d_pair=32, n_layers=12):
        super().__init__()
        self.layers = nn.ModuleList([PairLayer(d_seq, d_pair) for _ in range(n_layers)])

    def forward(self, seq, pair):
        for layer in self.layers:
            seq, pair = layer(seq, pair)
        return seq, pair

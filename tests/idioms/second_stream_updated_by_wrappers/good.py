"""Each layer carries two streams, the nodes and the pair representation, and hands both on. The
node update ends in a norm of the node stream (post-norm there); the pair stream is updated by
residual wrappers whose branches normalise their input first: two pre-norm adds into
the pair stream per layer, over the layers the pair stream runs through: its writers are
scaled by 1/sqrt(2 * depth)."""
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x) + x


class PairMix(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, dim)

    def forward(self, pair):
        return self.out(self.proj(self.norm(pair)).relu())


class NodeUpdate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, nodes, pair):
        return self.norm(nodes + self.proj(pair.mean(2)))


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.nodes = NodeUpdate(dim)
        self.pairs = nn.Sequential(Residual(PairMix(dim, 2 * dim)), Residual(PairMix(dim, 2 * dim)))

    def forward(self, nodes, pair):
        nodes = self.nodes(nodes, pair)
        pair = self.pairs(pair)
        return nodes, pair


class Readout(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, nodes):
        return nodes + self.proj(self.norm(nodes))


class Model(nn.Module):
    def __init__(self, dim=64, depth=4, readout_depth=2):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim) for _ in range(depth)])
        self.readout = nn.ModuleList([Readout(dim) for _ in range(readout_depth)])
        for readout in self.readout:
            nn.init.zeros_(readout.proj.weight)
        for layer in self.layers:
            for step in layer.pairs:
                nn.init.normal_(step.fn.out.weight, std=0.02 / (2 * depth) ** 0.5)

    def forward(self, nodes, pair):
        for layer in self.layers:
            nodes, pair = layer(nodes, pair)
        for readout in self.readout:
            nodes = readout(nodes)
        return nodes, pair

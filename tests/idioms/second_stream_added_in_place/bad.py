"""A graph layer carries node features and edge features: `edges += self.edge_mlp(self.edge_norm(h))`
then `return h, edges`. The edge stream is handed from layer to layer, so the edge MLP's last
layer writes a residual stream and needs a depth factor; the node writer is zero-initialised."""
import torch.nn as nn


class GraphLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.node_norm = nn.RMSNorm(dim)
        self.node_out = nn.Linear(dim, dim)
        nn.init.zeros_(self.node_out.weight)
        self.edge_norm = nn.RMSNorm(dim)
        self.edge_mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))  # expect: INI001

    def forward(self, h, edges):
        h = h + self.node_out(self.node_norm(h))
        edges += self.edge_mlp(self.edge_norm(h))
        return h, edges


class GraphNet(nn.Module):
    def __init__(self, dim=48, rounds=16):
        super().__init__()
        self.rounds = nn.ModuleList(GraphLayer(dim) for _ in range(rounds))

    def forward(self, h, edges):
        for layer in self.rounds:
            h, edges = layer(h, edges)
        return h

"""Queries as a stream of their own: `CrossMix.forward(context, queries)` normalises the
context and the queries apart and attends over both; the owner zips two lists and adds each
output into the queries. The writers get 0.02/sqrt(2 * n_layers) after the generic init."""
import math

import torch
import torch.nn as nn
from packing import pack_all


class CrossMix(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_ctx = nn.RMSNorm(width)
        self.norm_q = nn.RMSNorm(width)
        self.w_q = nn.Linear(width, width)
        self.w_k = nn.Linear(width, width)
        self.w_v = nn.Linear(width, width)
        self.w_o = nn.Linear(width, width)

    def forward(self, context, queries):
        context = self.norm_ctx(context)
        queries = self.norm_q(queries)
        both = torch.cat([context, queries], dim=1)
        q, k, v = pack_all((self.w_q(queries), self.w_k(both), self.w_v(both)))
        mixed = torch.softmax(torch.einsum("bid,bjd->bij", q, k), dim=-1)
        return self.w_o(torch.einsum("bij,bjd->bid", mixed, v))


class Dense(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.RMSNorm(width)
        self.w_in = nn.Linear(width, 2 * width)
        self.w_back = nn.Linear(2 * width, width)

    def forward(self, x):
        return self.w_back(torch.relu(self.w_in(self.norm(x))))


class QueryDecoder(nn.Module):
    def __init__(self, width=64, n_layers=8, n_queries=16):
        super().__init__()
        self.queries = nn.Parameter(torch.zeros(n_queries, width))
        self.mixes = nn.ModuleList([CrossMix(width) for _ in range(n_layers)])
        self.denses = nn.ModuleList([Dense(width) for _ in range(n_layers)])
        self.apply(self._init)
        for mix, dense in zip(self.mixes, self.denses):
            nn.init.normal_(mix.w_o.weight, std=0.02 / math.sqrt(2 * n_layers))
            nn.init.normal_(dense.w_back.weight, std=0.02 / math.sqrt(2 * n_layers))

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)

    def forward(self, context):
        queries = self.queries.expand(context.shape[0], -1, -1)
        for mix, dense in zip(self.mixes, self.denses):
            queries = queries + mix(context, queries)
            queries = queries + dense(queries)
        return queries

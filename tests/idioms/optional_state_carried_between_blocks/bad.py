"""The owner's loop over its layers carries a second value from one layer to the next beside the
stream, `None` before the first (the previous layer's attention scores, a summary of the last
branch). That value is handed to each layer's branch with the normed stream; it is no stream of
its own, so the branch still reads only the normed stream: pre-norm, writers at PyTorch's default
init, no depth factor. Two shapes: scores handed back by the branch and passed by keyword, and a
summary passed by position; each rebound in the loop under a flag that is off by default."""
import torch
import torch.nn as nn


class ScoredAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, h, prev=None):
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2)
        if prev is not None:
            scores = scores + prev
        return self.proj(scores.softmax(-1) @ v), scores


class ScoreNet(nn.Module):
    def __init__(self, width=64, depth=6, chain_scores=False):
        super().__init__()
        self.chain_scores = chain_scores
        self.layers = nn.ModuleList(
            [nn.ModuleList([nn.LayerNorm(width), ScoredAttention(width)]) for _ in range(depth)]
        )

    def forward(self, x):
        scores = None
        for norm, attn in self.layers:
            out, new_scores = attn(norm(x), prev=scores)
            x = x + out
            if self.chain_scores:
                scores = new_scores
        return x


class Recall(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(2 * width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, h, summary):
        if summary is None:
            summary = torch.zeros_like(h)
        return self.down(torch.relu(self.up(torch.cat([h, summary], dim=-1))))


class RecallNet(nn.Module):
    def __init__(self, width=32, n_layer=4, share_summary=False):
        super().__init__()
        self.share_summary = share_summary
        self.blocks = nn.ModuleList([nn.ModuleList([nn.RMSNorm(width), Recall(width)]) for _ in range(n_layer)])

    def forward(self, x):
        summary = None
        for norm, recall in self.blocks:
            out = recall(norm(x), summary)
            if self.share_summary:
                summary = out.mean(dim=1, keepdim=True).expand_as(out)
            x = x + out
        return x

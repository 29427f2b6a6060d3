import torch.nn as nn

__all__ = ["MixHead", "FeedForward"]


class MixHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.qkv = nn.Linear(cfg.width, 3 * cfg.width)
        self.out = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.out(weights @ v)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.up = nn.Linear(cfg.width, 4 * cfg.width)
        self.down = nn.Linear(4 * cfg.width, cfg.width)

    def forward(self, x):
        return self.down(self.up(x).relu())

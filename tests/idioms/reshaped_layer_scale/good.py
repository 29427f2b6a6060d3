"""A conv block with LayerScale on by default: each branch is multiplied by a learned per-channel
gain, reshaped to broadcast over the feature map (`gamma.unsqueeze(-1).unsqueeze(-1)`), before
its stochastic depth and the add. The gain, not the writer's init, sets the branch scale."""
import torch
import torch.nn as nn


class BranchDrop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training:
            return x
        keep = torch.rand(x.shape[0], 1, 1, 1, device=x.device) < 1 - self.p
        return x * keep.to(x.dtype) / (1 - self.p)


class Block(nn.Module):
    def __init__(self, channels, rate, layer_scale=True):
        super().__init__()
        self.norm1 = nn.GroupNorm(1, channels)
        self.mix = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm2 = nn.GroupNorm(1, channels)
        self.grow = nn.Conv2d(channels, 4 * channels, 1)
        self.shrink = nn.Conv2d(4 * channels, channels, 1)
        self.drop = BranchDrop(rate)
        self.layer_scale = layer_scale
        if layer_scale:
            self.gamma1 = nn.Parameter(1e-5 * torch.ones(channels))
            self.gamma2 = nn.Parameter(1e-5 * torch.ones(channels))

    def forward(self, x):
        if self.layer_scale:
            x = x + self.drop(self.gamma1.unsqueeze(-1).unsqueeze(-1) * self.mix(self.norm1(x)))
            mlp = self.shrink(self.grow(self.norm2(x)).relu())
            x = x + self.drop(self.gamma2.view(-1, 1, 1) * mlp)
        else:
            x = x + self.drop(self.mix(self.norm1(x)))
            x = x + self.drop(self.shrink(self.grow(self.norm2(x)).relu()))
        return x


class Net(nn.Module):
    def __init__(self, channels=64, n_blocks=8, rate=0.1, layer_scale=True):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(channels, rate, layer_scale) for _ in range(n_blocks)])
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, x):
        return self.blocks(x)

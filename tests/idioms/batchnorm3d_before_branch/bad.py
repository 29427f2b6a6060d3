"""A video block stack: the token mixer normalises its input with BatchNorm3d, the MLP with a
LayerNorm over channels; both branches are added into the stream and their output convolutions
keep PyTorch's default init, no depth factor."""
import torch.nn as nn


class ChannelNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.GroupNorm(1, dim)

    def forward(self, x):
        return self.norm(x)


class TokenMixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.BatchNorm3d(dim)
        self.mix = nn.Conv3d(dim, dim, 5, padding=2, groups=dim)
        self.proj = nn.Conv3d(dim, dim, 1)  # expect: INI001

    def forward(self, x):
        return self.proj(self.mix(self.norm(x)))


class VideoStack(nn.Module):
    def __init__(self, dim=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([])
        for _ in range(depth):
            mlp = nn.Sequential(
                ChannelNorm(dim),
                nn.Conv3d(dim, 4 * dim, 1),
                nn.GELU(),
                nn.Conv3d(4 * dim, dim, 1),  # expect: INI001
            )
            self.blocks.append(nn.ModuleList([TokenMixer(dim), mlp]))

    def forward(self, x):
        for mixer, mlp in self.blocks:
            x = mixer(x) + x
            x = mlp(x) + x
        return x

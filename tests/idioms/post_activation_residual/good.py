"""An Inception-ResNet-style CNN whose branches start with a norm, and whose blocks put the sum
through a ReLU (`relu(out * 0.17 + x)`, `F.relu(x + f(x))`). The stream goes through a
nonlinearity every block: a post-activation residual network, not a residual stream to scale
by depth."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MixedBlock(nn.Module):
    def __init__(self, channels, scale=1.0):
        super().__init__()
        self.scale = scale
        self.norm = nn.BatchNorm2d(channels)
        self.branch0 = nn.Conv2d(channels, 32, 1)
        self.branch1 = nn.Sequential(nn.Conv2d(channels, 32, 1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1))
        self.project = nn.Conv2d(64, channels, 1)
        self.act = nn.ReLU()

    def forward(self, x):
        h = self.norm(x)
        out = torch.cat((self.branch0(h), self.branch1(h)), 1)
        out = self.project(out)
        out = out * self.scale + x
        return self.act(out)


class FunctionalBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        self.reduce = nn.Conv2d(channels, 64, 1)
        self.expand = nn.Conv2d(64, channels, 1)

    def forward(self, x):
        return F.relu(x + self.expand(F.relu(self.reduce(self.norm(x)))))


class InceptionResNet(nn.Module):
    def __init__(self, channels=128, depth=10, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.mixed = nn.Sequential(*[MixedBlock(channels, scale=0.17) for _ in range(depth)])
        self.functional = nn.Sequential(*[FunctionalBlock(channels) for _ in range(depth)])
        self.head = nn.Linear(channels, num_classes)

    def forward(self, images):
        x = self.functional(self.mixed(self.stem(images)))
        return self.head(x.mean((2, 3)))

"""A self-distillation wrapper holds a student encoder and an EMA teacher made by deep-copying
it (`copy.deepcopy(self.student)`): the copy leaves the student's init as it was, and the
encoder scales its writers by 1/sqrt(2 * depth) itself."""
import copy
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm_2 = nn.LayerNorm(width)
        self.fc_in = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.fc_out(F.gelu(self.fc_in(self.norm_2(x))))


class Encoder(nn.Module):
    def __init__(self, n_features=16, width=128, depth=6):
        super().__init__()
        self.embed = nn.Linear(n_features, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        for block in self.blocks:
            nn.init.normal_(block.proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.fc_out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


class Distiller(nn.Module):
    def __init__(self, student=None):
        super().__init__()
        self.student = student or Encoder()
        self.teacher = copy.deepcopy(self.student)
        for parameter in self.teacher.parameters():
            parameter.requires_grad_(False)
        self.predictor = nn.Linear(128, 128)

    def forward(self, x, x_masked):
        with_target = self.teacher(x).detach()
        return F.mse_loss(self.predictor(self.student(x_masked)), with_target)

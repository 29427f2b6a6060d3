"""A branch module only: a factory function in another file builds it, for a block in a third."""
import torch.nn as nn
import torch.nn.functional as F


class SwiGLU(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.w1 = nn.Linear(width, hidden, bias=False)
        self.w2 = nn.Linear(width, hidden, bias=False)
        self.w3 = nn.Linear(hidden, width, bias=False)  # expect: INI001
        nn.init.normal_(self.w3.weight, std=0.02)

    def forward(self, x):
        return self.w3(F.silu(self.w1(x)) * self.w2(x))

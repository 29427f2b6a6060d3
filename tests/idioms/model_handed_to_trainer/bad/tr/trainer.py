import torch.nn as nn
from accelerate import Accelerator

from tr.model import LM


class Trainer(nn.Module):
    def __init__(self, model: LM, *, lr=3e-4):
        super().__init__()
        self.accelerator = Accelerator()
        self.model = model
        self.model = self.accelerator.prepare(model)
        self.lr = lr

import torch.nn as nn


class PreTrainedModel(nn.Module):
    """A stand-in for the library's base: its generic init is what the registry describes."""

    def __init__(self, config):
        super().__init__()
        self.config = config

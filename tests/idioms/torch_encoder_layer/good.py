"""A speech encoder stacked from PyTorch's own layer, post-norm (the default `norm_first=False`):
the norm after each add sets the stream's scale, whatever the writers start with."""
import torch.nn as nn


class SpeechEncoder(nn.Module):
    def __init__(self, n_mels=80, d_model=256, n_layers=12):
        super().__init__()
        self.frontend = nn.Linear(n_mels, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 4 * d_model, 0.1, "gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, 32)

    def forward(self, features):
        return self.head(self.encoder(self.frontend(features)))

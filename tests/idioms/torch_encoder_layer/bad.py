"""A speech encoder stacked from PyTorch's own pre-norm layer (`norm_first=True`): the layer's
residual writers, `self_attn.out_proj` and `linear2`, keep PyTorch's default init."""
import torch.nn as nn


class SpeechEncoder(nn.Module):
    def __init__(self, n_mels=80, d_model=256, n_layers=12):
        super().__init__()
        self.frontend = nn.Linear(n_mels, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 4 * d_model, batch_first=True, norm_first=True)  # expect: INI001, INI001
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, 32)

    def forward(self, features):
        return self.head(self.encoder(self.frontend(features)))

"""An image captioner decoding with PyTorch's pre-norm decoder layer: three residual adds per
layer (self-attention, cross-attention, MLP), all three writers at PyTorch's default init."""
import torch.nn as nn


class Captioner(nn.Module):
    def __init__(self, vocab=5000, d=512, depth=6):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model=d, nhead=8, batch_first=True, norm_first=True),  # expect: INI001, INI001, INI001
            depth,
        )
        self.out = nn.Linear(d, vocab)

    def forward(self, ids, image_features):
        return self.out(self.decoder(self.tokens(ids), image_features))

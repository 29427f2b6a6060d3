"""A translation model on `nn.Transformer` with pre-norm layers: its own `_reset_parameters`
gives every matrix xavier_uniform_, the residual writers included, with no depth factor."""
import torch.nn as nn


class Translator(nn.Module):
    def __init__(self, src_vocab=8000, tgt_vocab=8000, d=512):
        super().__init__()
        self.src_embed = nn.Embedding(src_vocab, d)
        self.tgt_embed = nn.Embedding(tgt_vocab, d)
        self.transformer = nn.Transformer(d, 8, 6, 6, 2048, 0.1, batch_first=True, norm_first=True)  # expect: INI001, INI001, INI001, INI001, INI001
        self.generator = nn.Linear(d, tgt_vocab)

    def forward(self, src, tgt):
        return self.generator(self.transformer(self.src_embed(src), self.tgt_embed(tgt)))

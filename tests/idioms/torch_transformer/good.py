"""A translation model on `nn.Transformer` with its default post-norm layers (the original
recipe): the norm after each add sets the stream's scale."""
import torch.nn as nn


class Translator(nn.Module):
    def __init__(self, src_vocab=8000, tgt_vocab=8000, d=512):
        super().__init__()
        self.src_embed = nn.Embedding(src_vocab, d)
        self.tgt_embed = nn.Embedding(tgt_vocab, d)
        self.transformer = nn.Transformer(d, 8, 6, 6, 2048, 0.1, batch_first=True)
        self.generator = nn.Linear(d, tgt_vocab)

    def forward(self, src, tgt):
        return self.generator(self.transformer(self.src_embed(src), self.tgt_embed(tgt)))

"""A speech encoder whose three pre-norm blocks are separate attributes chained by hand:
the writers are drawn with std 0.02/sqrt(2 * 3), the two adds of each of the three blocks."""
import math

import torch.nn as nn
import torch.nn.functional as F


class EncoderBlock(nn.Module):
    def __init__(self, dim=256, hidden=1024, n_blocks=3):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.norm_2 = nn.LayerNorm(dim)
        self.linear_1 = nn.Linear(dim, hidden)
        self.linear_2 = nn.Linear(hidden, dim)
        std = 0.02 / math.sqrt(2 * n_blocks)
        nn.init.normal_(self.attn.out_proj.weight, std=std)
        nn.init.normal_(self.linear_2.weight, std=std)

    def forward(self, x, mask=None):
        h = self.norm_1(x)
        h, _ = self.attn(h, h, h, key_padding_mask=mask)
        x = x + h
        h = self.linear_2(F.relu(self.linear_1(self.norm_2(x))))
        return x + h


class SpeechEncoder(nn.Module):
    def __init__(self, vocab=100, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block_1 = EncoderBlock(dim)
        self.block_2 = EncoderBlock(dim)
        self.block_3 = EncoderBlock(dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        x = self.block_1(x, mask=mask)
        x = self.block_2(x, mask=mask)
        x = self.block_3(x, mask=mask)
        return self.norm(x)

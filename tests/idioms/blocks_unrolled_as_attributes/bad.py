"""A speech encoder whose three pre-norm blocks are separate attributes (`self.block_1`,
`self.block_2`, `self.block_3`) that `forward` chains by hand: an unrolled stack of three
blocks of two adds each, every layer at PyTorch's default init. No depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class EncoderBlock(nn.Module):
    def __init__(self, dim=256, hidden=1024):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)  # expect: INI001
        self.norm_2 = nn.LayerNorm(dim)
        self.linear_1 = nn.Linear(dim, hidden)
        self.linear_2 = nn.Linear(hidden, dim)  # expect: INI001

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

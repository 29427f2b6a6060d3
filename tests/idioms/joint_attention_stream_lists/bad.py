"""A joint (MMDiT-style) attention over any number of token streams, handed them as one tuple:
a list of query/key/value projections and a list of output projections, one per stream, walked
side by side with the streams (`zip(inputs, self.to_qkv)`); the projected streams are collected
with `append`, joined for one attention, split back by length and each slice goes through its
own output projection; the outputs come back as a tuple, one per stream, and each is added into
its own stream. Pre-norm on both streams, the output projections keep PyTorch's default init."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class JointAttention(nn.Module):
    def __init__(self, widths, inner=64):
        super().__init__()
        self.to_qkv = nn.ModuleList([nn.Linear(width, 3 * inner) for width in widths])
        self.to_out = nn.ModuleList([nn.Linear(inner, width) for width in widths])  # expect: INI001, INI001

    def forward(self, inputs):
        qkvs = []
        for tokens, to_qkv in zip(inputs, self.to_qkv):
            qkvs.append(to_qkv(tokens))
        lengths = [t.shape[1] for t in inputs]
        q, k, v = torch.cat(qkvs, dim=1).chunk(3, dim=-1)
        mixed = F.scaled_dot_product_attention(q, k, v)
        outs = []
        for part, to_out in zip(mixed.split(lengths, dim=1), self.to_out):
            outs.append(to_out(part))
        return tuple(outs)


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        return self.down(F.gelu(self.up(self.norm(x))))


class JointBlock(nn.Module):
    def __init__(self, text_width, image_width):
        super().__init__()
        self.text_norm = nn.LayerNorm(text_width)
        self.image_norm = nn.LayerNorm(image_width)
        self.attn = JointAttention((text_width, image_width))
        self.text_ff = FeedForward(text_width)
        self.image_ff = FeedForward(image_width)

    def forward(self, text, image):
        text_out, image_out = self.attn((self.text_norm(text), self.image_norm(image)))
        text = text + text_out
        image = image + image_out
        text = text + self.text_ff(text)
        image = image + self.image_ff(image)
        return text, image


class JointTransformer(nn.Module):
    def __init__(self, text_width=32, image_width=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([JointBlock(text_width, image_width) for _ in range(depth)])

    def forward(self, text, image):
        for block in self.blocks:
            text, image = block(text, image)
        return text, image

"""A joint block over two token streams (text and image): one attention over both, with a query
projection and an output projection per stream, hands back one output per stream; each is added
into its own stream, and each stream has its own feed-forward. Pre-norm on both streams; the
image stream comes in second. The output projections keep PyTorch's default init."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class JointAttention(nn.Module):
    def __init__(self, dim_text, dim_image, inner=64):
        super().__init__()
        self.qkv_text = nn.Linear(dim_text, 3 * inner)
        self.qkv_image = nn.Linear(dim_image, 3 * inner)
        self.out_text = nn.Linear(inner, dim_text)  # expect: INI001
        self.out_image = nn.Linear(inner, dim_image)  # expect: INI001

    def forward(self, text, image):
        n = text.shape[1]
        q, k, v = torch.cat((self.qkv_text(text), self.qkv_image(image)), dim=1).chunk(3, dim=-1)
        mixed = F.scaled_dot_product_attention(q, k, v)
        return self.out_text(mixed[:, :n]), self.out_image(mixed[:, n:])


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        return self.down(torch.relu(self.up(self.norm(x))))


class JointBlock(nn.Module):
    def __init__(self, dim_text, dim_image):
        super().__init__()
        self.norm_text = nn.LayerNorm(dim_text)
        self.norm_image = nn.LayerNorm(dim_image)
        self.attn = JointAttention(dim_text, dim_image)
        self.ff_text = FeedForward(dim_text)
        self.ff_image = FeedForward(dim_image)

    def forward(self, text, image):
        text_out, image_out = self.attn(self.norm_text(text), self.norm_image(image))
        text = text + text_out
        image = image + image_out
        text = text + self.ff_text(text)
        image = image + self.ff_image(image)
        return text, image


class JointTransformer(nn.Module):
    def __init__(self, dim_text=32, dim_image=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([JointBlock(dim_text, dim_image) for _ in range(depth)])

    def forward(self, text, image):
        for block in self.blocks:
            text, image = block(text, image)
        return text, image

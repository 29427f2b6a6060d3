"""A block over two streams (text and image tokens) whose `forward` takes only keyword-only
inputs, each stream with its own residual adds; the owner passes each stream by name. All the
writers are zero-initialised."""
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        return self.to_out((q @ k.transpose(-1, -2)).softmax(dim=-1) @ v)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 4), nn.GELU())
        self.proj_out = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return self.proj_out(self.net(x))


class TwoStreamBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.text_norm = nn.LayerNorm(dim)
        self.image_norm = nn.LayerNorm(dim)
        self.text_attn = Attention(dim)
        self.image_attn = Attention(dim)
        self.text_ff = FeedForward(dim)
        self.image_ff = FeedForward(dim)

    def forward(self, *, text_tokens, image_tokens, text_mask=None):
        text_tokens = text_tokens + self.text_attn(self.text_norm(text_tokens), mask=text_mask)
        image_tokens = image_tokens + self.image_attn(self.image_norm(image_tokens))
        text_tokens = text_tokens + self.text_ff(text_tokens)
        image_tokens = image_tokens + self.image_ff(image_tokens)
        return text_tokens, image_tokens


class TwoStreamTransformer(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([TwoStreamBlock(dim) for _ in range(depth)])
        for name, param in self.named_parameters():
            if name.endswith(("proj_out.weight", "to_out.weight")):
                nn.init.zeros_(param)

    def forward(self, *, text_tokens, image_tokens, text_mask=None):
        for block in self.blocks:
            text_tokens, image_tokens = block(text_tokens=text_tokens, image_tokens=image_tokens, text_mask=text_mask)
        return text_tokens, image_tokens

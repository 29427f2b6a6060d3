"""Generic modules: every layer they hold is handed to them by whoever builds them."""
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, qkv, out):
        super().__init__()
        self.qkv = qkv
        self.out = out

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, up, down):
        super().__init__()
        self.up = up
        self.down = down

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, attn, mlp, attn_norm=None, mlp_norm=None):
        super().__init__()
        self.attn, self.mlp = attn, mlp
        self.attn_norm = attn_norm or nn.Identity()
        self.mlp_norm = mlp_norm or nn.Identity()

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    def __init__(self, embed, blocks, norm, head):
        super().__init__()
        self.embed, self.blocks, self.norm, self.head = embed, blocks, norm, head

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))

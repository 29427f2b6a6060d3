"""Weights allocated as bare `torch.empty` parameters (the interpretability-library style), the
model's own `init_weights` drawing the position table and every `nn.Linear`, but never the
attention's output matrix nor the MLP's second matrix: both writers stay uninitialised memory.
The finding stands on the statement that makes each one."""
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.W_O = nn.Parameter(  # expect: INI001
            torch.empty(d_model, d_model)
        )

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, d // self.n_heads).transpose(1, 3).unbind(2)
        z = nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        return z @ self.W_O


class MLP(nn.Module):
    def __init__(self, d_model, d_mlp):
        super().__init__()
        self.W_in = nn.Parameter(torch.empty(d_model, d_mlp))
        self.W_out = nn.Parameter(  # expect: INI001
            torch.empty(d_mlp, d_model)
        )

    def forward(self, x):
        return torch.relu(x @ self.W_in) @ self.W_out


class Block(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class PosEmbedding(nn.Module):
    def __init__(self, n_ctx, d_model):
        super().__init__()
        self.W_pos = nn.Parameter(torch.empty(n_ctx, d_model))

    def forward(self, x):
        return self.W_pos[: x.shape[1]]


class ViT(nn.Module):
    def __init__(self, d_model=256, n_heads=8, n_layers=12, n_ctx=197):
        super().__init__()
        self.pos = PosEmbedding(n_ctx, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_heads) for _ in range(n_layers)])
        self.ln_final = nn.LayerNorm(d_model)
        self.init_weights()

    def init_weights(self):
        for m in self.modules():
            if isinstance(m, PosEmbedding):
                nn.init.normal_(m.W_pos, std=0.02)
            elif isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = x + self.pos(x)
        for block in self.blocks:
            x = block(x)
        return self.ln_final(x)

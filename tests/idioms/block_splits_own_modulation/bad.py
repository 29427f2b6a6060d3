"""A DiT block that computes its own adaLN modulation from the conditioning and splits it in
`forward` (`shift, scale, gate = self.adaLN_modulation(c).chunk(6, dim=1)`), its modulation Linear
left at PyTorch's default init: the gates are O(1) from the start, not adaLN-Zero, so the
branches they multiply are plain residual writers with no depth factor."""
import torch
import torch.nn as nn


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = nn.functional.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)  # expect: INI001

    def forward(self, x):
        return self.fc2(nn.functional.gelu(self.fc1(x)))


class DiTBlock(nn.Module):
    def __init__(self, hidden_dim, num_heads=8):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden_dim, elementwise_affine=False, eps=1e-6)
        self.attn = Attention(hidden_dim, num_heads=num_heads)
        self.norm2 = nn.LayerNorm(hidden_dim, elementwise_affine=False, eps=1e-6)
        self.mlp = Mlp(hidden_dim, 4 * hidden_dim)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden_dim, 6 * hidden_dim, bias=True))

    def forward(self, x, c):
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = (
            self.adaLN_modulation(c).chunk(6, dim=1)
        )
        x = x + gate_msa.unsqueeze(1) * self.attn(modulate(self.norm1(x), shift_msa, scale_msa))
        x = x + gate_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), shift_mlp, scale_mlp))
        return x


class DiT(nn.Module):
    def __init__(self, hidden=256, depth=16):
        super().__init__()
        self.t_embedder = nn.Linear(1, hidden)
        self.blocks = nn.ModuleList([DiTBlock(hidden) for _ in range(depth)])

    def forward(self, x, t):
        t = self.t_embedder(t)
        for j, block in enumerate(self.blocks):
            x = block(x, t)
        return x

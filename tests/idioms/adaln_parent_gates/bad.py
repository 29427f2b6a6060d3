"""DiT with adaLN-zero: the gates are dropped (shift/scale only) and the writers stay at xavier."""
import torch
import torch.nn as nn


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class DiTBlock(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden_size, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(hidden_size, 8, batch_first=True)
        self.proj = nn.Linear(hidden_size, hidden_size)  # expect: INI001
        self.norm2 = nn.LayerNorm(hidden_size, elementwise_affine=False)
        self.fc1 = nn.Linear(hidden_size, 4 * hidden_size)
        self.fc2 = nn.Linear(4 * hidden_size, hidden_size)  # expect: INI001

    def forward(self, x, shift_msa, scale_msa, shift_mlp, scale_mlp):
        h = modulate(self.norm1(x), shift_msa, scale_msa)
        x = x + self.proj(self.attn(h, h, h, need_weights=False)[0])
        h = modulate(self.norm2(x), shift_mlp, scale_mlp)
        x = x + self.fc2(nn.functional.gelu(self.fc1(h)))
        return x


class DiT(nn.Module):
    def __init__(self, hidden_size=1152, depth=28):
        super().__init__()
        self.t_embedder = nn.Sequential(nn.Linear(256, hidden_size), nn.SiLU())
        self.blocks = nn.ModuleList([DiTBlock(hidden_size) for _ in range(depth)])
        self.adaLN_modulation = nn.ModuleList([nn.Linear(hidden_size, 4 * hidden_size) for _ in range(depth)])
        self.initialize_weights()

    def initialize_weights(self):
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)
        for modulation in self.adaLN_modulation:
            nn.init.zeros_(modulation.weight)
            nn.init.zeros_(modulation.bias)

    def forward(self, x, t):
        c = nn.functional.silu(self.t_embedder(t))
        for block, modulation in zip(self.blocks, self.adaLN_modulation):
            x = block(x, *modulation(c).chunk(4, dim=1))
        return x

"""An audio encoder that picks its block and attention classes by name from the module's
globals (`globals()[block_type]`), both named by a string default; the writers keep the
xavier init every Linear gets."""
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads).permute(2, 0, 3, 1, 4)
        attn = ((q @ k.transpose(-2, -1)) * (c // self.num_heads) ** -0.5).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)  # expect: INI001

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim, num_heads, attention_type="Attention"):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        attn_class = globals()[attention_type]
        self.attn = attn_class(dim, num_heads=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, 4 * dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class AudioEncoder(nn.Module):
    def __init__(self, embed_dim=768, depth=12, num_heads=12, block_type="Block", attention_type="Attention"):
        super().__init__()
        block_class = globals()[block_type]
        self.blocks = nn.Sequential(
            *[block_class(embed_dim, num_heads, attention_type=attention_type) for _ in range(depth)]
        )
        self.norm = nn.LayerNorm(embed_dim)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.xavier_uniform_(module.weight)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        return self.norm(self.blocks(x))

"""Two towers build the same residual block class through one shared encoder; the text tower
scales the writers by the depth, the image tower leaves PyTorch's default: only it is wrong."""
import torch.nn as nn
import torch.nn.functional as F


class ResidualBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out_proj = nn.Linear(d, d)  # expect: INI001
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.out_proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x))))


class Encoder(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        self.width, self.layers = width, layers
        self.blocks = nn.ModuleList([ResidualBlock(width) for _ in range(layers)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class TextTower(nn.Module):
    def __init__(self, vocab=1000, width=512, layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.encoder = Encoder(width, layers)
        nn.init.normal_(self.embed.weight, std=0.02)
        proj_std = self.encoder.width**-0.5 * (2 * self.encoder.layers) ** -0.5
        for block in self.encoder.blocks:
            nn.init.normal_(block.out_proj.weight, std=proj_std)
            nn.init.normal_(block.c_proj.weight, std=proj_std)

    def forward(self, tokens):
        return self.encoder(self.embed(tokens))


class ImageTower(nn.Module):
    def __init__(self, patch=16, width=768, layers=12):
        super().__init__()
        self.patchify = nn.Conv2d(3, width, patch, stride=patch)
        self.encoder = Encoder(width, layers)

    def forward(self, images):
        return self.encoder(self.patchify(images).flatten(2).transpose(1, 2))

"""An init entry point that raises for any layer type it does not know; every
layer of the block is one it knows, and the row-parallel writer gets no depth
factor."""
import torch.nn as nn
import torch.nn.functional as F


class ColumnLinear(nn.Linear):
    pass


class RowLinear(nn.Linear):
    pass


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = ColumnLinear(width, 3 * width)
        self.attn_out = RowLinear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        return x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Net(nn.Module):
    def __init__(self, width=256, depth=12):
        super().__init__()
        self.depth = depth
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def init_model_randomly(self, std=0.02):
        for name, param in self.named_parameters():
            module_name, param_name = name.rsplit(".", 1)
            module = self.get_submodule(module_name)
            if isinstance(module, ColumnLinear):
                nn.init.normal_(param, std=std)
            elif isinstance(module, RowLinear):
                nn.init.normal_(param, std=std)
            elif isinstance(module, nn.LayerNorm):
                nn.init.ones_(param) if param_name == "weight" else nn.init.zeros_(param)
            else:
                raise ValueError(f"no init for {name}")

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x

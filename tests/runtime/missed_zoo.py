"""Bad/good pairs of the bug classes a first `--runtime` missed, and good twins it was noisy on.

`make(recipe)` builds a tiny pre-norm GPT (width 32, 4 blocks, vocab 64). Each bad recipe is a
bug that shipped in public model code; its good twin differs only by the fix:

- clones / fresh:               blocks copied from one initialised prototype / built one by one;
- compounding / redrawn:        the init rescales in place (twice is wrong) / draws afresh;
- wide-trunc / narrow-trunc:    `trunc_normal_(std=0.02)` with absolute bounds +-2 / +-2 std;
- fan-out / fan-in:             std 1/sqrt(shape[0]) / 1/sqrt(shape[1]) (writers also 1/sqrt(N));
- lost-zero / kept-zero:        the writers' deliberate zero init redrawn by a later generic
                                init / the generic init first, the zero init last.

Good twins that must stay silent: `build_model()` calls the init the constructor leaves out, and
`build_on_meta()` builds on meta, materialises and calls `reset_parameters()`.
"""

from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

WIDTH, DEPTH, VOCAB = 32, 4, 64
BAD = ("clones", "compounding", "wide-trunc", "fan-out", "lost-zero")
GOOD = ("fresh", "redrawn", "narrow-trunc", "fan-in", "kept-zero")


class Block(nn.Module):
    def __init__(self, recipe: str) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH, bias=False)
        self.proj = nn.Linear(WIDTH, WIDTH, bias=False)
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.up = nn.Linear(WIDTH, 4 * WIDTH, bias=False)
        self.down = nn.Linear(4 * WIDTH, WIDTH, bias=False)
        if recipe == "lost-zero":
            nn.init.zeros_(self.proj.weight)
            nn.init.zeros_(self.down.weight)

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.ln_2(x))))


class TinyGPT(nn.Module):
    def __init__(self, recipe: str = "fresh", init: bool = True) -> None:
        super().__init__()
        self.recipe = recipe
        self.wte = nn.Embedding(VOCAB, WIDTH)
        if recipe == "clones":
            prototype = Block(recipe)
            self._init_block(prototype)
            self.blocks = nn.ModuleList([copy.deepcopy(prototype) for _ in range(DEPTH)])
        else:
            self.blocks = nn.ModuleList([Block(recipe) for _ in range(DEPTH)])
        self.ln_f = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        if init:
            self.init_weights()

    def writers(self):
        return [layer for block in self.blocks for layer in (block.proj, block.down)]

    def init_weights(self) -> None:
        recipe = self.recipe
        if recipe == "compounding":
            # Draws once in __init__ below, and only rescales here: a second call shrinks again.
            for layer in self.writers():
                layer.weight.data.mul_(1 / math.sqrt(2 * DEPTH))
            return
        if recipe == "kept-zero":
            self.apply(self._generic)
            for layer in self.writers():
                nn.init.zeros_(layer.weight)
            return
        if recipe in ("fan-out", "fan-in"):
            self._fan_init(0 if recipe == "fan-out" else 1)
            return
        if recipe == "clones":  # the blocks come initialised from their prototype
            for module in (self.wte, self.head):
                self._generic(module)
            return
        self.apply(self._generic)
        for layer in self.writers():
            if recipe == "wide-trunc":
                nn.init.trunc_normal_(layer.weight, std=0.02 / math.sqrt(2 * DEPTH))
            elif recipe == "narrow-trunc":
                std = 0.02 / math.sqrt(2 * DEPTH)
                nn.init.trunc_normal_(layer.weight, std=std, a=-2 * std, b=2 * std)
            else:
                nn.init.normal_(layer.weight, std=0.02 / math.sqrt(2 * DEPTH))

    def _init_block(self, block: Block) -> None:
        block.apply(self._generic)
        for layer in (block.proj, block.down):
            nn.init.normal_(layer.weight, std=0.02 / math.sqrt(2 * DEPTH))

    def _generic(self, module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def _fan_init(self, dim: int) -> None:
        writers = {id(layer) for layer in self.writers()}
        for module in self.modules():
            if isinstance(module, nn.Linear):
                std = 1 / math.sqrt(module.weight.shape[dim])
                if id(module) in writers:
                    std /= math.sqrt(2 * DEPTH)
                nn.init.normal_(module.weight, std=std)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, std=1.0)

    def reset_parameters(self) -> None:
        for module in self.modules():
            if isinstance(module, nn.LayerNorm):
                module.reset_parameters()
        self.init_weights()

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class CompoundingGPT(TinyGPT):
    """The compounding recipe's first draw: generic init, then the public rescale."""

    def __init__(self) -> None:
        super().__init__("compounding", init=False)
        self.apply(self._generic)
        self.init_weights()


def make(recipe: str) -> TinyGPT:
    return CompoundingGPT() if recipe == "compounding" else TinyGPT(recipe)


def build_model() -> TinyGPT:
    """The constructor leaves the init to the factory (as many training scripts do)."""
    model = TinyGPT("fresh", init=False)
    model.init_weights()
    return model


def build_on_meta() -> TinyGPT:
    """Construct without memory, materialise, then initialise: the FSDP-style recipe."""
    with torch.device("meta"):
        model = TinyGPT("fresh", init=False)
    model.to_empty(device="cpu")
    model.reset_parameters()
    return model

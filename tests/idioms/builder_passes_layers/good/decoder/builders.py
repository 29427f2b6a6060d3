"""A builder function: it makes the layers, scales the writers and hands them on."""
import math

import torch.nn as nn

from decoder.parts import MLP, Attention, Block, Decoder


def decoder(vocab, width, n_blocks):
    blocks = nn.ModuleList()
    for _ in range(n_blocks):
        out = nn.Linear(width, width, bias=False)
        nn.init.normal_(out.weight, std=0.02 / math.sqrt(2 * n_blocks))
        attn = Attention(qkv=nn.Linear(width, 3 * width, bias=False), out=out)
        block = Block(attn, feed_forward(width, n_blocks), nn.LayerNorm(width), nn.LayerNorm(width))
        blocks.append(block)
    head = nn.Linear(width, vocab, bias=False)
    return Decoder(nn.Embedding(vocab, width), blocks, nn.LayerNorm(width), head)


def feed_forward(width, n_blocks):
    up = nn.Linear(width, 4 * width)
    down = nn.Linear(4 * width, width)
    nn.init.zeros_(down.weight)
    return MLP(up, down)

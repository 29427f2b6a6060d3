"""A builder function: it makes the layers and hands them to the generic modules."""
import torch.nn as nn

from decoder.parts import MLP, Attention, Block, Decoder


def decoder(vocab, width, n_blocks):
    blocks = nn.ModuleList()
    for _ in range(n_blocks):
        attn = Attention(
            qkv=nn.Linear(width, 3 * width, bias=False),
            out=nn.Linear(width, width, bias=False),  # expect: INI001
        )
        block = Block(attn, feed_forward(width), nn.LayerNorm(width), nn.LayerNorm(width))
        blocks.append(block)
    head = nn.Linear(width, vocab, bias=False)
    return Decoder(nn.Embedding(vocab, width), blocks, nn.LayerNorm(width), head)


def feed_forward(width):
    up = nn.Linear(width, 4 * width)
    down = nn.Linear(4 * width, width)  # expect: INI001
    return MLP(up, down)

"""A builder function and the generic modules it fills, in one file: the builder makes a list of
pre-norm layers and hands it to the encoder class, whose own constructor builds no layer. Built
alone the encoder is empty; the model is the builder's. The builder draws both writers smaller by
the square root of twice the depth."""

import math

import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)


class FeedForward(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Layer(nn.Module):
    def __init__(self, attention, feed_forward, width):
        super().__init__()
        self.attention = attention
        self.feed_forward = feed_forward
        self.attention_norm = nn.LayerNorm(width)
        self.feed_forward_norm = nn.LayerNorm(width)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.feed_forward_norm(x))


class Encoder(nn.Module):
    def __init__(self, embed, layers, width):
        super().__init__()
        self.embed = embed
        self.layers = layers
        self.final_norm = nn.LayerNorm(width)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)


def build_encoder(in_features, width, hidden, heads, num_layers):
    layers = nn.ModuleList()
    for _ in range(num_layers):
        attention = Attention(width, heads)
        feed_forward = FeedForward(width, hidden)
        for writer in (attention.out, feed_forward.down):
            nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * num_layers))
        layers.append(Layer(attention, feed_forward, width))
    return Encoder(nn.Linear(in_features, width), layers, width)

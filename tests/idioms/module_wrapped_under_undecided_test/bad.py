"""A branch wrapped again only under a test `__init__` cannot decide (`if chunk == 1:
mixer = Skippable(mixer)`): the module is in the model on both paths, inside the wrapper or
not, and its last layer still writes into the stream. Both writers owe a depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class AddBack(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, **kwargs):
        return x + self.inner(x, **kwargs)


class Normed(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = inner

    def forward(self, x, **kwargs):
        return self.inner(self.norm(x), **kwargs)


class Skippable(nn.Module):
    def __init__(self, when, inner):
        super().__init__()
        self.when = when
        self.inner = inner

    def forward(self, x, **kwargs):
        if self.when(x, **kwargs):
            return x
        return self.inner(x, **kwargs)


class TokenMixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix_in = nn.Linear(width, 2 * width)
        self.mix_out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x, cache=None):
        a, b = self.mix_in(x).chunk(2, dim=-1)
        return self.mix_out(a * F.sigmoid(b))


class ChannelMixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 3 * width)
        self.down = nn.Linear(3 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Mixer(nn.Module):
    def __init__(self, vocab, width, n_layers, chunk=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.stages = nn.ModuleList([])
        for _ in range(n_layers):
            mixer = AddBack(Normed(width, TokenMixer(width)))
            channels = AddBack(Normed(width, ChannelMixer(width)))
            if chunk == 1:
                mixer = Skippable(lambda x, cache=None: cache is None, mixer)
            self.stages.append(nn.ModuleList([mixer, channels]))

    def forward(self, tokens, cache=None):
        x = self.embed(tokens)
        for mixer, channels in self.stages:
            x = mixer(x, cache=cache)
            x = channels(x)
        return x

from torch import nn

from . import components


class SpeechModel(nn.Module):
    def __init__(self, encoder, width, vocab):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(width, vocab)

    def forward(self, x):
        return self.head(self.encoder(x))


def speech_model(width, heads, hidden, depth, encoder_norm_before, vocab=32):
    encoder = components.make_encoder(width, heads, hidden, depth, norm_before=encoder_norm_before)
    return SpeechModel(encoder, width, vocab)

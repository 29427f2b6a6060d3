"""An image captioner decoding with PyTorch's pre-norm decoder layer whose three residual
writers start at zero: each layer starts as the identity, a deliberate scheme."""
import torch.nn as nn


class Captioner(nn.Module):
    def __init__(self, vocab=5000, d=512, depth=6):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model=d, nhead=8, batch_first=True, norm_first=True),
            depth,
        )
        self.out = nn.Linear(d, vocab)
        for module in self.modules():
            if isinstance(module, nn.TransformerDecoderLayer):
                nn.init.zeros_(module.self_attn.out_proj.weight)
                nn.init.zeros_(module.multihead_attn.out_proj.weight)
                nn.init.zeros_(module.linear2.weight)

    def forward(self, ids, image_features):
        return self.out(self.decoder(self.tokens(ids), image_features))

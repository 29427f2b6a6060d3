"""A block that also keeps extra streams, mixed by a child's helper method that adds into the
streams it is handed (AltUp-style): its coefficient layer is no residual writer, and the
block's own two adds set N. Both writers are depth-scaled."""
import torch
import torch.nn as nn


class StreamMixer(nn.Module):
    def __init__(self, dim, num_streams=4):
        super().__init__()
        self.router_norm = nn.LayerNorm(dim)
        self.router = nn.Linear(dim, num_streams, bias=False)
        self.correction_coefs = nn.Linear(num_streams, num_streams, bias=False)

    def predict(self, streams):
        modalities = torch.tanh(self.router(self.router_norm(streams[0])))
        mixed = self.correction_coefs(modalities).permute(2, 0, 1).unsqueeze(-1) * streams
        mixed += streams
        return mixed


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.mixer = StreamMixer(dim)

    def forward(self, streams):
        predictions = self.mixer.predict(streams)
        x = predictions[0]
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        x = x + self.fc2(torch.relu(self.fc1(self.norm2(x))))
        return torch.cat([x[None], predictions[1:]])


class Model(nn.Module):
    def __init__(self, vocab=1000, dim=128, n_layer=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        self.head = nn.Linear(dim, vocab, bias=False)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
            if name.endswith(("out_proj.weight", "fc2.weight")):
                nn.init.normal_(p, std=0.02 / (2 * n_layer) ** 0.5)

    def forward(self, idx):
        x = self.embed(idx)
        streams = torch.stack([x] * 4)
        for block in self.blocks:
            streams = block(streams)
        return self.head(streams[0])

"""Builds the model and applies its init with the run's depth, then trains."""
from functools import partial

import torch

from tinylm.model import GPT

N_LAYER = 24


def main():
    model = GPT(n_embd=1024, n_layer=N_LAYER)
    model.apply(partial(model._init_weights, n_layer=N_LAYER))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    idx = torch.randint(0, 50304, (8, 128))
    for _ in range(10):
        loss = model(idx).logsumexp(-1).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()

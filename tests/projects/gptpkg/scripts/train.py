from functools import partial

import torch

from gptpkg import GPT, Config


def main():
    config = Config(n_layer=24)
    model = GPT(config).to("cpu")
    model.apply(partial(model._init_weights, n_layer=config.n_layer))
    optimizer = torch.optim.AdamW(model.parameters())
    return model, optimizer


if __name__ == "__main__":
    main()

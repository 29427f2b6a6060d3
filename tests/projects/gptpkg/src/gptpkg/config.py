from dataclasses import dataclass


@dataclass
class GPTConfig:
    n_layer: int = 12
    n_embd: int = 768
    vocab_size: int = 50304

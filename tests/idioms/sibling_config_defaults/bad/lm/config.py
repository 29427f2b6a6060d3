"""The model's settings, in their own module: the depth-scaled init is off by default."""
from dataclasses import dataclass


@dataclass
class LMConfig:
    d_model: int = 256
    n_layers: int = 12
    init_std: float = 0.02
    scale_residual_init: bool = False

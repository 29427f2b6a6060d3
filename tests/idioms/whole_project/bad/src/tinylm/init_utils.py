"""Init helpers shared by the models of the project."""
import math

import torch.nn as nn

BASE_STD = 0.02


def normal_(tensor, std=BASE_STD):
    return nn.init.normal_(tensor, mean=0.0, std=std)


def residual_std(n_layer, base_std=BASE_STD):
    return base_std / math.sqrt(2 * n_layer)

import math

import torch.nn as nn

from .. import model  # a cycle: model imports this module too


def normal_(tensor, std):
    nn.init.normal_(tensor, mean=0.0, std=std)


def scaled_normal_(tensor, std, n_layer):
    nn.init.normal_(tensor, mean=0.0, std=std / math.sqrt(2 * n_layer))

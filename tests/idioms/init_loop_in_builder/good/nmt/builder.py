import math

from torch.nn.init import normal_, uniform_

from nmt.model import Decoder


def build_base_model(opt):
    return Decoder(opt.width, opt.layers)


def build_model(opt, checkpoint=None):
    model = build_base_model(opt)
    if checkpoint is None:
        for name, param in model.named_parameters():
            if name.endswith("w_2.weight"):
                normal_(param, std=0.02 / math.sqrt(opt.layers))
            else:
                uniform_(param, -opt.param_init, opt.param_init)
    return model

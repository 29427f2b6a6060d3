from torch.nn.init import uniform_, xavier_uniform_

from nmt.model import Decoder


def build_base_model(opt):
    return Decoder(opt.width, opt.layers)


def build_model(opt, checkpoint=None):
    model = build_base_model(opt)
    if checkpoint is None:
        if opt.param_init != 0.0:
            for param in model.parameters():
                uniform_(param, -opt.param_init, opt.param_init)
        elif opt.param_init_glorot:
            for _, module in model.named_modules():
                for _, param in module.named_parameters():
                    if param.dim() > 1:
                        xavier_uniform_(param)
        else:
            raise ValueError("set param_init or param_init_glorot")
    return model

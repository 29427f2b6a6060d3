"""`torch.nn` layers: the parameters each creates and PyTorch's default init of them."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import (
    Arg,
    BlockStack,
    BuiltStack,
    CallsArgument,
    LayerSpec,
    Library,
    ParamDefault,
    ResidualBlock,
)


#: The sizes of a Linear's and a ConvNd's weight dimensions, as the layer names them.
_LINEAR_DIMS = ("out_features", "in_features")
_CONV_DIMS = ("out_channels", "in_channels")


#: `reset_parameters()` of Linear and ConvNd: kaiming_uniform_(a=sqrt(5)), std = 1/sqrt(3 * fan_in).
def kaiming_default(ndim: int, dims: tuple[str, ...] = ()) -> tuple[ParamDefault, ParamDefault]:
    """Linear (2-D weight) and ConvNd (N+2-D weight): both draw kaiming_uniform_(a=sqrt(5))."""
    return (
        ParamDefault("weight", "default", 3**-0.5, over_sqrt_fan_in=True, ndim=ndim, dims=dims),
        ParamDefault("bias", "default", None, ndim=1, dims=dims[:1]),
    )


def conv_default(ndim: int) -> tuple[ParamDefault, ParamDefault]:
    return kaiming_default(ndim, _CONV_DIMS + ("kernel_size",) * (ndim - 2))


LINEAR_PARAMS = kaiming_default(2, _LINEAR_DIMS)
EMBEDDING_PARAMS = (ParamDefault("weight", "normal", 1.0, ndim=2),)
NORM_PARAMS = (ParamDefault("weight", "ones", 0.0, ndim=1), ParamDefault("bias", "zeros", 0.0, ndim=1))

_LAYERS: dict[str, LayerSpec] = {
    "Linear": LayerSpec("linear", "Linear", params=LINEAR_PARAMS),
    "LazyLinear": LayerSpec("linear", "LazyLinear", ("Linear",), params=LINEAR_PARAMS),
    "Bilinear": LayerSpec("linear", "Bilinear", params=kaiming_default(3)),
    "Conv1d": LayerSpec("conv", "Conv1d", params=conv_default(3)),
    "Conv2d": LayerSpec("conv", "Conv2d", params=conv_default(4)),
    "Conv3d": LayerSpec("conv", "Conv3d", params=conv_default(5)),
    "Embedding": LayerSpec("embedding", "Embedding", params=EMBEDDING_PARAMS),
    "LayerNorm": LayerSpec("norm", "LayerNorm", params=NORM_PARAMS),
    "RMSNorm": LayerSpec("norm", "RMSNorm", params=(ParamDefault("weight", "ones", 0.0, ndim=1),)),
    "GroupNorm": LayerSpec("norm", "GroupNorm", params=NORM_PARAMS),
    "BatchNorm1d": LayerSpec("norm", "BatchNorm1d", params=NORM_PARAMS),
    "BatchNorm2d": LayerSpec("norm", "BatchNorm2d", params=NORM_PARAMS),
    "BatchNorm3d": LayerSpec("norm", "BatchNorm3d", params=NORM_PARAMS),
    "SyncBatchNorm": LayerSpec("norm", "SyncBatchNorm", params=NORM_PARAMS),
    "ModuleList": LayerSpec("container", "ModuleList", entries_keyword="modules"),
    "ModuleDict": LayerSpec("container", "ModuleDict", entries_keyword="modules"),
    "Sequential": LayerSpec("sequential", "Sequential"),
    "Dropout": LayerSpec("dropout", "Dropout"),
    "Dropout1d": LayerSpec("dropout", "Dropout1d"),
    "Dropout2d": LayerSpec("dropout", "Dropout2d"),
    "Identity": LayerSpec("dropout", "Identity"),
    "MultiheadAttention": LayerSpec(
        "attention",
        "MultiheadAttention",
        params=(
            ParamDefault("in_proj_weight", "xavier_uniform", None, ndim=2),
            ParamDefault("in_proj_bias", "zeros", 0.0, ndim=1),
        ),
        sublayers=(("out_proj", "torch.nn.Linear"),),
    ),
}

#: `norm_first` of the encoder and decoder layers (after d_model, nhead, dim_feedforward, dropout,
#: activation, layer_norm_eps, batch_first): False, the original post-norm layer.
_NORM_FIRST = Arg(7, ("norm_first",), False)
#: The parametrised sub-layers of the layers, in the order their constructors create them.
_ENCODER_SUBLAYERS = (
    ("self_attn", "torch.nn.MultiheadAttention"),
    ("linear1", "torch.nn.Linear"),
    ("linear2", "torch.nn.Linear"),
    ("norm1", "torch.nn.LayerNorm"),
    ("norm2", "torch.nn.LayerNorm"),
)
_DECODER_SUBLAYERS = (
    ("self_attn", "torch.nn.MultiheadAttention"),
    ("multihead_attn", "torch.nn.MultiheadAttention"),
    ("linear1", "torch.nn.Linear"),
    ("linear2", "torch.nn.Linear"),
    ("norm1", "torch.nn.LayerNorm"),
    ("norm2", "torch.nn.LayerNorm"),
    ("norm3", "torch.nn.LayerNorm"),
)
#: `nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout,
#: activation, custom_encoder, custom_decoder, layer_norm_eps, batch_first, norm_first, ...)`.
_TRANSFORMER_NORM_FIRST = Arg(11, ("norm_first",), False)

_BLOCKS: dict[str, LayerSpec] = {
    # forward: x + sa(norm1(x)), then + ff(norm2(x)) with norm_first; else norm1(x + sa(x)), ...
    "TransformerEncoderLayer": LayerSpec(
        "block",
        "TransformerEncoderLayer",
        sublayers=_ENCODER_SUBLAYERS,
        residual=ResidualBlock(("self_attn.out_proj", "linear2"), _NORM_FIRST),
    ),
    "TransformerDecoderLayer": LayerSpec(
        "block",
        "TransformerDecoderLayer",
        sublayers=_DECODER_SUBLAYERS,
        residual=ResidualBlock(("self_attn.out_proj", "multihead_attn.out_proj", "linear2"), _NORM_FIRST),
    ),
    "TransformerEncoder": LayerSpec(
        "stack",
        "TransformerEncoder",
        stack=BlockStack("layers", Arg(0, ("encoder_layer",), 0), Arg(1, ("num_layers",), 0), Arg(2, ("norm",), 0)),
    ),
    "TransformerDecoder": LayerSpec(
        "stack",
        "TransformerDecoder",
        stack=BlockStack("layers", Arg(0, ("decoder_layer",), 0), Arg(1, ("num_layers",), 0), Arg(2, ("norm",), 0)),
    ),
    "Transformer": LayerSpec(
        "stack",
        "Transformer",
        builds=(
            BuiltStack(
                "encoder",
                "torch.nn.TransformerEncoder",
                "torch.nn.TransformerEncoderLayer",
                Arg(2, ("num_encoder_layers",), 6),
                _TRANSFORMER_NORM_FIRST,
                "torch.nn.LayerNorm",
                Arg(7, ("custom_encoder",), False),
            ),
            BuiltStack(
                "decoder",
                "torch.nn.TransformerDecoder",
                "torch.nn.TransformerDecoderLayer",
                Arg(3, ("num_decoder_layers",), 6),
                _TRANSFORMER_NORM_FIRST,
                "torch.nn.LayerNorm",
                Arg(8, ("custom_decoder",), False),
            ),
        ),
        matrix_init="torch.nn.init.xavier_uniform_",
    ),
}
_ACTIVATIONS = (
    "GELU",
    "ReLU",
    "SiLU",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "Mish",
    "LeakyReLU",
    "ELU",
    "GLU",
    "Hardswish",
    "ReLU6",
    "Softplus",
)

TORCH_NN = Library(
    import_roots=("torch",),
    tensor_functions=("torch",),
    layers=tuple((f"torch.nn.{name}", spec) for name, spec in (_LAYERS | _BLOCKS).items())
    + tuple((f"torch.nn.{name}", LayerSpec("activation", name)) for name in _ACTIVATIONS),
    module_bases=(
        "torch.nn.Module",
        "torch.nn.modules.module.Module",
        "torch.nn.Linear",
        "torch.nn.Embedding",
        "torch.nn.LayerNorm",
        "torch.nn.ModuleList",
        "torch.nn.Sequential",
        "torch.nn.ModuleDict",
    ),
    # Activation checkpointing recomputes `fn(*inputs)` in backward; forward is that call.
    # `skip_init(nn.Linear, d, d)` builds the layer on the meta device and hands it back with
    # its parameters allocated but not initialised, to be set by init code elsewhere.
    calls_argument=(
        ("torch.utils.checkpoint.checkpoint", CallsArgument(function=0, inputs_from=1)),
        ("torch.nn.utils.skip_init", CallsArgument(function=0, inputs_from=1, skips_init=True)),
        ("torch.nn.utils.init.skip_init", CallsArgument(function=0, inputs_from=1, skips_init=True)),
    ),
)

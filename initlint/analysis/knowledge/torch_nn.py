"""`torch.nn` layers: the parameters each creates and PyTorch's default init of them."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library, LayerSpec, ParamDefault


#: `reset_parameters()` of Linear and ConvNd: kaiming_uniform_(a=sqrt(5)), std = 1/sqrt(3 * fan_in).
def kaiming_default(ndim: int) -> tuple[ParamDefault, ParamDefault]:
    """Linear (2-D weight) and ConvNd (N+2-D weight): both draw kaiming_uniform_(a=sqrt(5))."""
    return (
        ParamDefault("weight", "default", 3**-0.5, over_sqrt_fan_in=True, ndim=ndim),
        ParamDefault("bias", "default", None, ndim=1),
    )


LINEAR_PARAMS = kaiming_default(2)
EMBEDDING_PARAMS = (ParamDefault("weight", "normal", 1.0, ndim=2),)
NORM_PARAMS = (ParamDefault("weight", "ones", 0.0, ndim=1), ParamDefault("bias", "zeros", 0.0, ndim=1))

_LAYERS: dict[str, LayerSpec] = {
    "Linear": LayerSpec("linear", "Linear", params=LINEAR_PARAMS),
    "LazyLinear": LayerSpec("linear", "LazyLinear", ("Linear",), params=LINEAR_PARAMS),
    "Bilinear": LayerSpec("linear", "Bilinear", params=kaiming_default(3)),
    "Conv1d": LayerSpec("conv", "Conv1d", params=kaiming_default(3)),
    "Conv2d": LayerSpec("conv", "Conv2d", params=kaiming_default(4)),
    "Conv3d": LayerSpec("conv", "Conv3d", params=kaiming_default(5)),
    "Embedding": LayerSpec("embedding", "Embedding", params=EMBEDDING_PARAMS),
    "LayerNorm": LayerSpec("norm", "LayerNorm", params=NORM_PARAMS),
    "RMSNorm": LayerSpec("norm", "RMSNorm", params=(ParamDefault("weight", "ones", 0.0, ndim=1),)),
    "GroupNorm": LayerSpec("norm", "GroupNorm", params=NORM_PARAMS),
    "BatchNorm1d": LayerSpec("norm", "BatchNorm1d", params=NORM_PARAMS),
    "BatchNorm2d": LayerSpec("norm", "BatchNorm2d", params=NORM_PARAMS),
    "ModuleList": LayerSpec("container", "ModuleList"),
    "ModuleDict": LayerSpec("container", "ModuleDict"),
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
    layers=tuple((f"torch.nn.{name}", spec) for name, spec in _LAYERS.items())
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
)

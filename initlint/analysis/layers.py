"""What library layers are, and what PyTorch gives their parameters by default."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from initlint.analysis.values import Monomial


@dataclass(frozen=True)
class LayerType:
    kind: str  # linear, embedding, norm, container, sequential, dropout, activation, attention, unknown
    #: Last component of the class name; `isinstance` against another known name is decided by it.
    class_name: str
    #: Class names this one is a subclass of (for isinstance).
    also: tuple[str, ...] = ()
    #: Parameter name -> (init kind, std) given at construction.
    defaults: tuple[tuple[str, str, Monomial | None], ...] = ()
    #: The weight's init comes from a constructor argument (Megatron `init_method=`).
    init_from_argument: str | None = None


_KAIMING_DEFAULT = Monomial(1.0, (("fan_in", Fraction(-1, 2)),)) * Monomial.of(3 ** -0.5)
_LINEAR_DEFAULTS = (("weight", "default", _KAIMING_DEFAULT), ("bias", "default", None))
_NORM_DEFAULTS = (("weight", "ones", Monomial.of(0.0)), ("bias", "zeros", Monomial.of(0.0)))

_TORCH_NN = {
    "Linear": LayerType("linear", "Linear", defaults=_LINEAR_DEFAULTS),
    "LazyLinear": LayerType("linear", "LazyLinear", ("Linear",), defaults=_LINEAR_DEFAULTS),
    "Bilinear": LayerType("linear", "Bilinear", defaults=_LINEAR_DEFAULTS),
    "Conv1d": LayerType("conv", "Conv1d", defaults=_LINEAR_DEFAULTS),
    "Conv2d": LayerType("conv", "Conv2d", defaults=_LINEAR_DEFAULTS),
    "Conv3d": LayerType("conv", "Conv3d", defaults=_LINEAR_DEFAULTS),
    "Embedding": LayerType("embedding", "Embedding", defaults=(("weight", "normal", Monomial.of(1.0)),)),
    "LayerNorm": LayerType("norm", "LayerNorm", defaults=_NORM_DEFAULTS),
    "RMSNorm": LayerType("norm", "RMSNorm", defaults=(("weight", "ones", Monomial.of(0.0)),)),
    "GroupNorm": LayerType("norm", "GroupNorm", defaults=_NORM_DEFAULTS),
    "BatchNorm1d": LayerType("norm", "BatchNorm1d", defaults=_NORM_DEFAULTS),
    "BatchNorm2d": LayerType("norm", "BatchNorm2d", defaults=_NORM_DEFAULTS),
    "ModuleList": LayerType("container", "ModuleList"),
    "ModuleDict": LayerType("container", "ModuleDict"),
    "Sequential": LayerType("sequential", "Sequential"),
    "Dropout": LayerType("dropout", "Dropout"),
    "Dropout1d": LayerType("dropout", "Dropout1d"),
    "Dropout2d": LayerType("dropout", "Dropout2d"),
    "Identity": LayerType("dropout", "Identity"),
    "MultiheadAttention": LayerType(
        "attention",
        "MultiheadAttention",
        defaults=(("in_proj_weight", "xavier_uniform", None), ("in_proj_bias", "zeros", Monomial.of(0.0))),
    ),
}
for _activation in ("GELU", "ReLU", "SiLU", "Tanh", "Sigmoid", "Softmax", "Mish", "LeakyReLU", "ELU", "GLU", "Hardswish", "ReLU6", "Softplus"):
    _TORCH_NN[_activation] = LayerType("activation", _activation)

#: Layers from other libraries, matched by the last component of their qualified name.
_BY_NAME = {
    # Hugging Face GPT-2's transposed linear draws normal(0, 0.02) in its own __init__.
    "Conv1D": LayerType("linear", "Conv1D", defaults=(("weight", "normal", Monomial.of(0.02)), ("bias", "zeros", Monomial.of(0.0)))),
    "RowParallelLinear": LayerType("linear", "RowParallelLinear", init_from_argument="init_method"),
    "ColumnParallelLinear": LayerType("linear", "ColumnParallelLinear", init_from_argument="init_method"),
    "DropPath": LayerType("dropout", "DropPath"),
}

#: Attribute names that, for a layer of unknown type, still say "this is a norm / dropout".
NORM_HINTS = ("norm", "ln_", "ln1", "ln2", "ln_f", "layernorm", "rmsnorm")
PASS_THROUGH_HINTS = ("dropout", "drop_path", "drop", "identity")


def layer_type(qualified: str) -> LayerType | None:
    """The known type of a constructor, e.g. `torch.nn.Linear` or `transformers.pytorch_utils.Conv1D`."""
    last = qualified.rsplit(".", 1)[-1]
    from_torch = qualified.startswith(("torch.nn.", "nn.")) or qualified == last
    if from_torch and last in _TORCH_NN:
        return _TORCH_NN[last]
    if last in _BY_NAME:
        return _BY_NAME[last]
    if last.endswith(("LayerNorm", "RMSNorm")) or last in ("RMSNorm", "LayerNorm"):
        return LayerType("norm", last, defaults=_NORM_DEFAULTS)
    return None


def isinstance_by_name(layer: LayerType, class_name: str) -> bool:
    return class_name == layer.class_name or class_name in layer.also


def is_known_class_name(class_name: str) -> bool:
    return class_name in _TORCH_NN or class_name in _BY_NAME

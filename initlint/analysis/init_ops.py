"""What counts as an init operation: `nn.init.*_` functions, in-place tensor methods,
tensor factories behind `nn.Parameter`, and the std each one leaves a parameter with."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import Const, NewTensor, ParamRef, as_number
from initlint.analysis.model import InitOp, Param
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

_FAN_IN = Monomial.atom("fan_in").pow(Fraction(-1, 2), cst.Name("fan_in"))
_FAN_AVG = Monomial.atom("fan_avg").pow(Fraction(-1, 2), cst.Name("fan_avg"))

#: `nn.init` style functions: name -> (kind, index of the std-like argument, its keyword, default).
INIT_FUNCTIONS: dict[str, tuple[str, int, str, float]] = {
    "normal_": ("normal", 2, "std", 1.0),
    "normal": ("normal", 2, "std", 1.0),
    "trunc_normal_": ("trunc_normal", 2, "std", 1.0),
    "trunc_normal_tf_": ("trunc_normal", 2, "std", 1.0),
    "uniform_": ("uniform", -1, "", 0.0),
    "uniform": ("uniform", -1, "", 0.0),
    "zeros_": ("zeros", -1, "", 0.0),
    "ones_": ("ones", -1, "", 0.0),
    "constant_": ("constant", -1, "", 0.0),
    "eye_": ("constant", -1, "", 0.0),
    "dirac_": ("constant", -1, "", 0.0),
    "xavier_uniform_": ("xavier_uniform", 1, "gain", 1.0),
    "xavier_normal_": ("xavier_normal", 1, "gain", 1.0),
    "kaiming_uniform_": ("kaiming_uniform", -1, "", 0.0),
    "kaiming_normal_": ("kaiming_normal", -1, "", 0.0),
    "orthogonal_": ("orthogonal", 1, "gain", 1.0),
    "lecun_normal_": ("kaiming_normal", -1, "", 0.0),
}
#: In-place tensor methods: name -> kind ("scale" rescales what is there).
TENSOR_METHODS = {
    "normal_": "normal", "uniform_": "uniform", "zero_": "zeros", "fill_": "constant", "mul_": "scale", "div_": "scale",
    "copy_": "copy", "trunc_normal_": "trunc_normal",
}
TENSOR_FACTORIES = {
    "ones": ("ones", 0.0), "ones_like": ("ones", 0.0), "zeros": ("zeros", 0.0), "zeros_like": ("zeros", 0.0),
    "empty": ("empty", None), "empty_like": ("empty", None), "Tensor": ("empty", None), "FloatTensor": ("empty", None),
    "randn": ("normal", 1.0), "randn_like": ("normal", 1.0), "rand": ("uniform", 12 ** -0.5), "rand_like": ("uniform", 12 ** -0.5),
    "full": ("constant", 0.0), "tensor": ("constant", 0.0), "eye": ("constant", 0.0),
}
#: Callables that receive modules or tensors without initialising them.

def default_label(kind: str, class_name: str) -> str:
    if kind == "default":
        return f"PyTorch's default init of {class_name} (kaiming_uniform_(a=sqrt(5)), std = 1/sqrt(3*fan_in))"
    if kind == "normal":
        return f"PyTorch's default init of {class_name} (normal_(std=1))"
    return f"PyTorch's default init of {class_name} ({kind})"


def _std_for(interp: "Interpreter", kind: str, args: list, kwargs: dict, offset: int, call: cst.Call) -> tuple[Monomial | None, str]:
    source_node = None
    if kind in ("zeros", "ones", "constant"):
        return Monomial.of(0.0), ""
    if kind in ("normal", "trunc_normal"):
        index, keyword, default = 2 - offset, "std", 1.0
        value = kwargs.get(keyword, args[index] if len(args) > index else None)
        source_node = _arg_node(call, index + (1 if offset == 0 else 0) - (1 if offset == 0 else 0), keyword)
        if value is None:
            return Monomial.of(default), ""
        std = as_number(value)
        if std is not None and kind == "trunc_normal":
            std = std * Monomial.of(_truncation_factor(kwargs, args, std, offset))
        return std, interp.code(source_node) if source_node is not None else ""
    if kind == "uniform":
        low = as_number(kwargs.get("a", kwargs.get("from", args[1 - offset] if len(args) > 1 - offset else Const(0.0))))
        high = as_number(kwargs.get("b", kwargs.get("to", args[2 - offset] if len(args) > 2 - offset else Const(1.0))))
        if low is not None and high is not None and low.is_constant and high.is_constant:
            return Monomial.of(abs(high.const - low.const) / math.sqrt(12)), ""
        if low is not None and high is not None:
            return high * Monomial.of(2 / math.sqrt(12)), ""
        return None, ""
    if kind in ("xavier_uniform", "xavier_normal", "orthogonal"):
        gain = as_number(kwargs.get("gain", args[1] if len(args) > 1 else Const(1.0)))
        return (gain * _FAN_AVG if gain is not None else None), ""
    if kind in ("kaiming_uniform", "kaiming_normal"):
        return _FAN_IN, ""
    return None, ""


def _arg_node(call: cst.Call, index: int, keyword: str) -> cst.CSTNode | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    return positional[index].value if 0 <= index < len(positional) else None


def _truncation_factor(kwargs: dict, args: list, std: Monomial, offset: int) -> float:
    """std of N(0, s) truncated to [a, b] relative to s (symmetric, constant bounds only)."""
    low = as_number(kwargs.get("a", args[3 - offset] if len(args) > 3 - offset else Const(-2.0)))
    high = as_number(kwargs.get("b", args[4 - offset] if len(args) > 4 - offset else Const(2.0)))
    if low is None or high is None or not (low.is_constant and high.is_constant and std.is_constant) or std.const <= 0:
        return 1.0
    alpha, beta = low.const / std.const, high.const / std.const
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    mass = cdf(beta) - cdf(alpha)
    if mass <= 1e-12:
        return 1.0
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - ((pdf(alpha) - pdf(beta)) / mass) ** 2
    return math.sqrt(max(variance, 0.0))


def record_init(interp: "Interpreter", target: Any, kind: str, args: list, kwargs: dict, ctx: "Ctx", call: cst.Call, offset: int, fname: str) -> Any:
    params = [target.param] if isinstance(target, ParamRef) else []
    if kind == "scale":
        factor = as_number(args[0]) if args else None
        if factor is not None and fname == "div_":
            factor = factor.inverse(call)
        op = InitOp("scale", factor, call, ctx.via, ctx.certain, f"{fname}({interp.code(call.args[0].value) if call.args else ''})")
    else:
        std, source = _std_for(interp, kind, args, kwargs, offset, call)
        label = f"{fname}(std={source})" if source else f"{fname}"
        if std is not None and source.replace(".", "").replace("_", "").isalnum() and not source[:1].isdigit():
            label = f"{fname}(std={source} = {std.describe()})"  # `std=std`: show what it holds
        op = InitOp(kind, std, call, ctx.via, ctx.certain, label, source)
    if isinstance(target, NewTensor):
        return NewTensor(op)
    for param in params:
        param.ops.append(op)
    return target


def scale_in_place(interp: "Interpreter", param: Param, operand: Any, statement: cst.AugAssign, ctx: "Ctx") -> None:
    """`p /= math.sqrt(n_layer)` on a parameter rescales what is there."""
    factor = as_number(operand)
    if factor is not None and isinstance(statement.operator, cst.DivideAssign):
        factor = factor.inverse(statement)
    label = f"{interp.code(statement.target)} {statement.operator.__class__.__name__.replace('Assign', '').lower()} {interp.code(statement.value)}"
    param.ops.append(InitOp("scale", factor, statement, ctx.via, ctx.certain, label))

"""What counts as an init operation: `nn.init.*_` functions, in-place tensor methods,
tensor factories behind `nn.Parameter`, and the std each one leaves a parameter with."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, InitMethod, NewTensor, ParamRef, as_number, default_number
from initlint.analysis.knowledge.specs import Arg, InitMethodFactory, InitSpec
from initlint.analysis.model import InitOp, Param
from initlint.analysis.values import Monomial
from initlint.truncated_normal import truncated_normal_moments

_STANDARD_NORMAL = NormalDist()

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

_FAN_IN = Monomial.atom("fan_in").pow(Fraction(-1, 2), cst.Name("fan_in"))
_FAN_AVG = Monomial.atom("fan_avg").pow(Fraction(-1, 2), cst.Name("fan_avg"))


def default_label(kind: str, class_name: str) -> str:
    if kind == "default":
        return f"PyTorch's default init of {class_name} (kaiming_uniform_(a=sqrt(5)), std = 1/sqrt(3*fan_in))"
    if kind == "normal":
        return f"PyTorch's default init of {class_name} (normal_(std=1))"
    if kind == "empty":
        return f"torch.empty in {class_name}'s constructor (uninitialised memory)"
    return f"PyTorch's default init of {class_name} ({kind})"


def argument(spec: Arg, args: list[Any], kwargs: dict[Any, Any]) -> Any:
    """The value passed for `spec`, or its default."""
    for keyword in spec.keywords:
        if keyword in kwargs:
            return kwargs[keyword]
    return args[spec.index] if len(args) > spec.index else Const(spec.default)


def _std_for(
    interp: "Interpreter", spec: InitSpec, args: list[Any], kwargs: dict[Any, Any], call: cst.Call
) -> tuple[Monomial | None, str]:
    """The std `spec`'s call leaves, and the std argument as written (for labels)."""
    if spec.kind in ("zeros", "ones", "constant"):
        return Monomial.of(0.0), ""
    if spec.std is not None:
        return _normal_std(interp, spec, spec.std, args, kwargs, call)
    if spec.low is not None and spec.high is not None:
        low, high = as_number(argument(spec.low, args, kwargs)), as_number(argument(spec.high, args, kwargs))
        if low is not None and high is not None and low.is_constant and high.is_constant:
            return Monomial.of(abs(high.const - low.const) / math.sqrt(12)), ""
        if low is not None and high is not None:
            return high * Monomial.of(2 / math.sqrt(12)), ""
        return None, ""
    if spec.fan is not None:
        fan = _FAN_AVG if spec.fan == "fan_avg" else _FAN_IN
        if spec.gain is None:
            return fan, ""
        gain = as_number(argument(spec.gain, args, kwargs))
        return (gain * fan if gain is not None and fan is not None else None), ""
    return None, ""


def _normal_std(
    interp: "Interpreter", spec: InitSpec, std_arg: Arg, args: list[Any], kwargs: dict[Any, Any], call: cst.Call
) -> tuple[Monomial | None, str]:
    source_node = _arg_node(call, std_arg.index, std_arg.keywords)
    if not any(keyword in kwargs for keyword in std_arg.keywords) and len(args) <= std_arg.index:
        return Monomial.of(std_arg.default), ""
    std = as_number(argument(std_arg, args, kwargs))
    if std is not None and spec.low is not None and spec.high is not None:
        std = std * Monomial.of(_truncation_factor(spec, args, kwargs, std))
    return std, interp.code(source_node) if source_node is not None else ""


def _arg_node(call: cst.Call, index: int, keywords: tuple[str, ...]) -> cst.CSTNode | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    return positional[index].value if 0 <= index < len(positional) else None


def _truncation_factor(spec: InitSpec, args: list[Any], kwargs: dict[Any, Any], std: Monomial) -> float:
    """std of N(0, s) truncated to [a, b] relative to s (constant bounds only), by the routine
    the runtime judges with."""
    assert spec.low is not None and spec.high is not None
    low, high = as_number(argument(spec.low, args, kwargs)), as_number(argument(spec.high, args, kwargs))
    if low is None or high is None or not (low.is_constant and high.is_constant and std.is_constant) or std.const <= 0:
        return 1.0
    return truncated_normal_moments(0.0, std.const, low.const, high.const).std / std.const


def _support(spec: InitSpec, args: list[Any], kwargs: dict[Any, Any]) -> tuple[float, float] | None:
    """The constant interval a uniform draw fills the tensor from, or a constant fill's value."""
    if spec.kind != "uniform":
        return fill_support(spec.kind, spec.value, args, kwargs)
    if spec.low is None or spec.high is None:
        return None
    low, high = as_number(argument(spec.low, args, kwargs)), as_number(argument(spec.high, args, kwargs))
    if low is None or high is None or not (low.is_constant and high.is_constant):
        return None
    return low.const, high.const


def fill_support(kind: str, value: Arg | None, args: list[Any], kwargs: dict[Any, Any]) -> tuple[float, float] | None:
    """The one value a constant fill writes, as an interval of one point: 1 for ones, 0 for
    zeros, the number handed in for a constant (`torch.tensor(0.5)`, `constant_(w, 1e-5)`)."""
    if kind in ("ones", "zeros"):
        one = 1.0 if kind == "ones" else 0.0
        return one, one
    given = value is not None and (any(k in kwargs for k in value.keywords) or len(args) > value.index)
    # (A config field or root parameter by its default: `torch.full((d,), init_values)`.)
    number = (
        default_number(argument(value, args, kwargs)) if kind == "constant" and value is not None and given else None
    )
    return (number, number) if number is not None else None


def _inverse_normal_cdf_std(drawn: InitOp | None) -> Monomial | None:
    """The inverse error function of a tensor drawn from U(lo, hi) in [-1, 1]: as
    erfinv(2 Phi(z) - 1) = z / sqrt(2), it holds a normal of std 1/sqrt(2) cut where the bounds
    map to. Drawn from anything else: unknown."""
    if drawn is None or drawn.support is None or not drawn.certain:
        return None
    low, high = drawn.support
    if not -1.0 <= low < high <= 1.0:
        return None
    cuts = [
        _STANDARD_NORMAL.inv_cdf((bound + 1) / 2) if -1.0 < bound < 1.0 else math.copysign(math.inf, bound)
        for bound in (low, high)
    ]
    return Monomial.of(truncated_normal_moments(0.0, 1.0, cuts[0], cuts[1]).std / math.sqrt(2))


def record_init(
    interp: "Interpreter",
    target: Any,
    spec: InitSpec,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
    fname: str,
    kind: str | None = None,
) -> Any:
    """Append what `spec`'s call does to the target's plan (`kind` overrides the spec's: `fill_(1)` is "ones")."""
    params = list(target.all_params()) if isinstance(target, ParamRef) else []
    if params:
        ctx = ctx.toward(params[0].owner)
    kind = kind or spec.kind
    if kind == "scale":
        factor = as_number(args[0]) if args else None
        if factor is not None and spec.divides:
            factor = factor.inverse(call)
        op = InitOp(
            "scale",
            factor,
            call,
            ctx.via,
            ctx.certain,
            f"{fname}({interp.code(call.args[0].value) if call.args else ''})",
        )
    elif kind == "copy" and _copied(args) is not None:
        # `w.copy_(w.cpu().normal_(std=0.02).to(w.device))`, `w.copy_(torch.randn(shape) * 0.02)`:
        # the values copied in keep the distribution they were drawn from.
        drawn = _copied(args)
        assert drawn is not None
        label = f"{fname} of {drawn.label or drawn.kind}"
        op = InitOp(drawn.kind, drawn.std, call, ctx.via, ctx.certain and drawn.certain, label, ctx.arm, drawn.support)
    elif kind == "erfinv":
        drawn = params[0].ops[-1] if params and params[0].ops else target.op if isinstance(target, NewTensor) else None
        std = _inverse_normal_cdf_std(drawn)
        op = InitOp("trunc_normal", std, call, ctx.via, ctx.certain, f"{fname} (a normal, by its inverse CDF)", ctx.arm)
    else:
        spec = replace(spec, kind=kind)
        std, source = _std_for(interp, spec, args, kwargs, call)
        label = f"{fname}(std={source})" if source else f"{fname}"
        if std is not None and source.replace(".", "").replace("_", "").isalnum() and not source[:1].isdigit():
            label = f"{fname}(std={source} = {std.describe()})"  # `std=std`: show what it holds
        op = InitOp(kind, std, call, ctx.via, ctx.certain, label, ctx.arm, _support(spec, args, kwargs))
    if isinstance(target, NewTensor):
        return NewTensor(op)
    for param in params:
        param.ops.append(op)
    return target


def _copied(args: list[Any]) -> InitOp | None:
    """The draw a tensor copied in (`copy_`'s source) holds: a fresh tensor's, or a parameter's
    single certain init (a parameter drawn in place, then copied onto itself or another)."""
    source = args[0] if args else None
    if isinstance(source, NewTensor):
        return source.op if source.op.kind != "unknown" else None
    if isinstance(source, ParamRef):
        ops = source.param.ops
        last = ops[-1] if ops else None
        if last is not None and last.certain and last.kind not in ("scale", "copy", "unknown", "default"):
            return last
    return None


def scale_in_place(interp: "Interpreter", param: Param, operand: Any, statement: cst.AugAssign, ctx: "Ctx") -> None:
    """`p /= math.sqrt(n_layer)` on a parameter rescales what is there."""
    factor = as_number(operand)
    if factor is not None and isinstance(statement.operator, cst.DivideAssign):
        factor = factor.inverse(statement)
    label = f"{interp.code(statement.target)} {statement.operator.__class__.__name__.replace('Assign', '').lower()} {interp.code(statement.value)}"
    param.ops.append(InitOp("scale", factor, statement, ctx.via, ctx.toward(param.owner).certain, label))


def make_init_method(
    interp: "Interpreter", factory: InitMethodFactory, args: list[Any], kwargs: dict[Any, Any], call: cst.Call
) -> Any:
    """A call of a registered init-method factory (`knowledge/parallel_layers.py`): the init
    function they return, with its std worked out symbolically (sigma / sqrt(2 * num_layers))."""
    std = as_number(argument(factory.sigma, args, kwargs))
    if std is not None and factory.depth is not None:
        depth = as_number(argument(factory.depth, args, kwargs))
        multiplier = as_number(argument(factory.multiplier, args, kwargs)) if factory.multiplier else Monomial.of(1.0)
        over = (multiplier * depth).pow(Fraction(-1, 2), call) if depth is not None and multiplier is not None else None
        std = std * over if over is not None else None
    return InitMethod("normal", std, interp.code(call), call)


def apply_init_method(method: InitMethod, args: list[Any], ctx: "Ctx") -> Any:
    target = args[0] if args else None
    if not isinstance(target, ParamRef):
        return UNKNOWN
    for param in target.all_params():
        toward = ctx.toward(param.owner)
        param.ops.append(
            InitOp(method.kind, method.std, method.node, toward.via, toward.certain, method.label, toward.arm)
        )
    return target

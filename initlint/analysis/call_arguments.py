"""How a call's arguments reach a function's parameters, as Python binds them: the forward
reader inlines helpers and `forward` methods with the caller's values, and reads a known
argument of a library call (a fused norm's `residual=`) by position or keyword."""

from __future__ import annotations

from typing import Any

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Seq
from initlint.analysis.knowledge.specs import Arg


def call_argument(call: cst.Call, values: list[Any], arg: Arg) -> tuple[cst.BaseExpression, Any] | None:
    """The expression and the value a call hands a known argument (`arg.index`-th positional,
    or by one of its keywords); None where the call leaves it out or spreads its arguments."""
    for position, (written, value) in enumerate(zip(call.args, values)):
        if written.star:
            return None
        keyword = written.keyword.value if written.keyword is not None else None
        if keyword in arg.keywords or keyword is None and position == arg.index:
            return written.value, value
    return None


def bind_arguments(func: cst.FunctionDef, args: list[Any], call: cst.Call) -> dict[str, Any]:
    """The helper's parameters bound as Python binds them: `args` holds any leading bound values
    (`self`) and then one value per argument of `call`, keywords bound by name."""
    lead = len(args) - len(call.args)
    positional, named = list(args[:lead]), {}
    for arg, value in zip(call.args, args[lead:]):
        if arg.keyword is not None:
            named[arg.keyword.value] = value
        elif arg.star:
            break  # `*rest`: what follows cannot be placed
        else:
            positional.append(value)
    params = func.params
    ordered = list(params.posonly_params) + list(params.params)
    bound = {param.name.value: positional[i] for i, param in enumerate(ordered) if i < len(positional)}
    if isinstance(params.star_arg, cst.Param) and not any(arg.star for arg in call.args):
        bound[params.star_arg.name.value] = Seq(positional[len(ordered) :])  # `def inner(*args)`
    for param in ordered + list(params.kwonly_params):
        bound.setdefault(param.name.value, named.get(param.name.value, UNKNOWN))
    return bound


def refuses_keywords(func: cst.FunctionDef, call: cst.Call) -> bool:
    """The call names a keyword the function has no parameter for and no `**kwargs` to take: Python
    raises a TypeError, so the call never runs the function."""
    params = func.params
    if isinstance(params.star_kwarg, cst.Param):
        return False
    names = {param.name.value for param in (*params.params, *params.kwonly_params)}
    return any(arg.keyword is not None and arg.keyword.value not in names for arg in call.args)

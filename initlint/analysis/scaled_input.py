"""Whether a module's `forward` hands back its input unchanged (or only its values moved) on one
path and, on every other, its input multiplied or divided only by values computed without reading
the input's values.

That is stochastic depth written out in a file (`if not self.training: return x`, else
`x / keep * mask` with a random 0/1 `mask`): the identity at inference, a per-sample keep or
drop in training. A branch passes through it: the layer before it is what writes into the
stream. A module that multiplies its input by something computed from it
(`x * rsqrt(mean(x ** 2))`) renormalises the branch, and one with no identity path
(`x * self.alpha`) rescales it for good: neither passes it through. A module that only moves its
input's values (a token shift: half the channels shifted one step along the sequence, padded with
zeros, `torch.cat((x, F.pad(x_shift, (0, 0, 1, -1))), dim=-1)`) passes it through as a `Rearrange` does.

Each value of the function body is read as the set of what it can be, one per path: the input
itself, the input scaled, independent of the input's values, or anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from itertools import product
from typing import Iterable, Sequence

import libcst as cst

from initlint.analysis.abstract import Env
from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.knowledge.conventions import (
    FRESH_TENSORS,
    LIKE_METHODS,
    SCALE_KEEPING_METHODS,
    TENSOR_METADATA,
    VALUE_MOVING_CALLS,
)
from initlint.analysis.statements import StatementWalker

#: Helper functions followed into, one inside another.
MAX_CALL_DEPTH = 4


class Kind(Enum):
    INPUT = "the input itself"
    SCALED = "the input scaled by independent values"
    MOVED = "the input's values moved, cut out or padded with independent values"
    INDEPENDENT = "computed without reading the input's values"
    OTHER = "anything else"


Value = frozenset[Kind]
INDEPENDENT: Value = frozenset({Kind.INDEPENDENT})
OTHER: Value = frozenset({Kind.OTHER})
_CARRIES_INPUT = (Kind.INPUT, Kind.SCALED, Kind.MOVED)


def returns_scaled_input(
    forward: cst.FunctionDef, index: ModuleIndex, cls: ClassInfo | None, handing_on: frozenset[str] = frozenset()
) -> bool:
    """Whether `forward(self, x)` returns `x` (or its values moved) on some path and `x` times
    independent values on every other (see the module docstring). `handing_on`: the module's
    children that hand on what they are given (`self.dropout(x)`, a dropout or an activation)."""
    params = forward.params.params
    if len(params) < 2:
        return False
    reader = _Reader(index, cls, handing_on)
    returned = reader.returns_of(forward, {params[1].name.value: frozenset({Kind.INPUT})})
    return bool(returned & {Kind.INPUT, Kind.MOVED}) and returned <= frozenset(_CARRIES_INPUT)


@dataclass
class _Reading:
    depth: int
    returns: list[Value] = field(default_factory=list)
    gave_up: bool = False


class _Reader(StatementWalker[_Reading]):
    def __init__(self, index: ModuleIndex, cls: ClassInfo | None, handing_on: frozenset[str] = frozenset()) -> None:
        self.index = index
        self.cls = cls
        self.handing_on = handing_on

    def tick(self) -> None:
        """The walk is bounded by the function's size and `MAX_CALL_DEPTH`."""

    def returns_of(self, func: cst.FunctionDef, bound: dict[str, Value], depth: int = 0) -> Value:
        """What `func` can return, with its parameters bound (unbound ones are independent)."""
        reading = _Reading(depth)
        self.walk_block(func.body.body, Env(dict(bound)), reading)
        if reading.gave_up or not reading.returns:
            return OTHER
        return frozenset(kind for value in reading.returns for kind in value)

    # ------------------------------------------------------------ statements
    def on_small(self, small: cst.BaseSmallStatement, env: Env, reading: _Reading) -> None:
        if isinstance(small, cst.Return):
            reading.returns.append(self.value(small.value, env, reading) if small.value is not None else OTHER)
        elif isinstance(small, cst.Assign):
            value = self.value(small.value, env, reading)
            for target in small.targets:
                _bind(target.target, value, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            _bind(small.target, self.value(small.value, env, reading), env)
        elif isinstance(small, cst.AugAssign):
            operator = _BINARY_FOR_AUGMENTED.get(type(small.operator), cst.Add)
            current = self.value(small.target, env, reading)
            _bind(small.target, _binary(operator, current, self.value(small.value, env, reading)), env)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._in_place(small.value, env, reading)

    def _in_place(self, call: cst.Call, env: Env, reading: _Reading) -> None:
        """`mask.bernoulli_(keep)`, `x.div_(keep)`: the receiver now holds the method's result."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value.endswith("_"):
            env.names[func.value.value] = self.value(call, env, reading)

    def on_if(self, stmt: cst.If, env: Env, reading: _Reading) -> None:
        if self.value(stmt.test, env, reading) != INDEPENDENT:
            reading.gave_up = True  # a path chosen by the input's values: the factor depends on them
            return
        orelse = stmt.orelse
        else_body = [orelse] if isinstance(orelse, cst.If) else orelse.body.body if isinstance(orelse, cst.Else) else []
        before = dict(env.names)
        self.walk_block(stmt.body.body, env, reading)
        after_body, env.names = env.names, dict(before)
        self.walk_block(else_body, env, reading)
        for name in after_body.keys() | env.names.keys():
            env.names[name] = after_body.get(name, INDEPENDENT) | env.names.get(name, INDEPENDENT)

    def on_for(self, stmt: cst.For, env: Env, reading: _Reading) -> None:
        reading.gave_up = True  # one walk of a loop body is no fixpoint

    def on_while(self, stmt: cst.While, env: Env, reading: _Reading) -> None:
        reading.gave_up = True

    # ----------------------------------------------------------- expressions
    def value(self, node: cst.BaseExpression, env: Env, reading: _Reading) -> Value:
        if isinstance(node, cst.Name):
            found: Value = env.names.get(node.value, INDEPENDENT)
            return found
        if isinstance(node, (cst.BaseNumber, cst.BaseString, cst.Ellipsis)):
            return INDEPENDENT
        if isinstance(node, cst.Attribute):
            base = self.value(node.value, env, reading)
            return INDEPENDENT if node.attr.value in TENSOR_METADATA or base == INDEPENDENT else OTHER
        if isinstance(node, cst.BinaryOperation):
            left, right = self.value(node.left, env, reading), self.value(node.right, env, reading)
            return _binary(type(node.operator), left, right)
        if isinstance(node, cst.UnaryOperation):
            operand = self.value(node.expression, env, reading)
            return operand if isinstance(node.operator, cst.Minus) or operand == INDEPENDENT else OTHER
        if isinstance(node, cst.Call):
            return self._call(node, env, reading)
        if isinstance(node, cst.Subscript):
            # `x[:, :n]`: a part of the value, cut out by independent indices.
            index = _all_independent(self.value(part, env, reading) for item in node.slice for part in _parts(item))
            return _moved(self.value(node.value, env, reading)) if index == INDEPENDENT else OTHER
        if isinstance(node, cst.IfExp):
            if self.value(node.test, env, reading) != INDEPENDENT:
                return OTHER
            return self.value(node.body, env, reading) | self.value(node.orelse, env, reading)
        return _all_independent(self.value(part, env, reading) for part in _parts(node))

    def _call(self, call: cst.Call, env: Env, reading: _Reading) -> Value:
        args = [self.value(arg.value, env, reading) for arg in call.args]
        func = call.func
        if _child_called(func, self.handing_on) and len(args) == 1 and call.args[0].keyword is None:
            return args[0]  # `self.dropout(x)`: a child that hands on what it is given
        helper = self._helper(func)
        if helper is not None:
            if all(arg == INDEPENDENT for arg in args):
                return INDEPENDENT
            return self._follow(helper, call, args, reading)
        if not isinstance(func, cst.Attribute):
            name = func.value if isinstance(func, cst.Name) else ""
            return self._moving(call, env, reading) if name in VALUE_MOVING_CALLS else _all_independent(args)
        name = func.attr.value
        if name in TENSOR_METADATA or name in FRESH_TENSORS:
            return INDEPENDENT
        receiver = self.value(func.value, env, reading)
        if name in VALUE_MOVING_CALLS and receiver == INDEPENDENT:
            return self._moving(call, env, reading)  # `torch.cat((x, shifted), dim=-1)`, `F.pad(x, ...)`
        if name in VALUE_MOVING_CALLS and all(arg == INDEPENDENT for arg in args):
            return _moved(receiver)  # `x.chunk(2, dim=-1)`, `x.roll(1, dims=1)`
        if name in LIKE_METHODS:
            args = [INDEPENDENT] * len(args)
        if all(arg == INDEPENDENT for arg in args):
            keeps = name.rstrip("_") in SCALE_KEEPING_METHODS
            return frozenset(_kept(kind, keeps) for kind in receiver)
        if receiver == INDEPENDENT:
            return _functional(name, args)
        return OTHER

    def _moving(self, call: cst.Call, env: Env, reading: _Reading) -> Value:
        """A function moving its tensor arguments' values (`torch.cat((x, y))`, `F.pad(x, pad)`):
        the items of a tuple or list argument count one by one."""
        values: list[Value] = []
        for arg in call.args:
            items = arg.value.elements if isinstance(arg.value, (cst.Tuple, cst.List)) else None
            if items is None:
                values.append(self.value(arg.value, env, reading))
            else:
                values.extend(self.value(item.value, env, reading) for item in items)
        if any(Kind.OTHER in value for value in values):
            return OTHER
        kinds = {kind for value in values for kind in _moved(value)} - {Kind.INDEPENDENT}
        return frozenset(kinds) if kinds else INDEPENDENT

    def _helper(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, bool] | None:
        """A function of the file (`drop_path(x, p, training)`) or a method of the module's class
        (`self._drop(x)`), and whether it takes `self` first."""
        if isinstance(func, cst.Name):
            found = self.index.functions.get(func.value)
            return (found, False) if found is not None else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            method = self.index.find_method(self.cls, func.attr.value) if self.cls is not None else None
            return (method[1], True) if method is not None else None
        return None

    def _follow(
        self, helper: tuple[cst.FunctionDef, bool], call: cst.Call, args: list[Value], reading: _Reading
    ) -> Value:
        func, bound_self = helper
        if reading.depth >= MAX_CALL_DEPTH or any(arg.star for arg in call.args):
            return OTHER
        positional = [p.name.value for p in func.params.params][int(bound_self) :]
        bound: dict[str, Value] = {}
        for position, (arg, value) in enumerate(zip(call.args, args)):
            if arg.keyword is None and position >= len(positional):
                return OTHER
            bound[arg.keyword.value if arg.keyword is not None else positional[position]] = value
        return self.returns_of(func, bound, reading.depth + 1)


_BINARY_FOR_AUGMENTED: dict[type, type] = {
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}


def _binary(operator: type, left: Value, right: Value) -> Value:
    return frozenset(_combine(operator, a, b) for a, b in product(left, right))


def _combine(operator: type, left: Kind, right: Kind) -> Kind:
    if left is Kind.INDEPENDENT and right is Kind.INDEPENDENT:
        return Kind.INDEPENDENT
    if operator is cst.Multiply and {left, right} & {Kind.INDEPENDENT} and {left, right} & set(_CARRIES_INPUT):
        return Kind.SCALED
    if operator is cst.Divide and left in _CARRIES_INPUT and right is Kind.INDEPENDENT:
        return Kind.SCALED
    return Kind.OTHER


def _child_called(func: cst.BaseExpression, names: frozenset[str]) -> bool:
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "self"
        and func.attr.value in names
    )


def _functional(name: str, args: Sequence[Value]) -> Value:
    """`torch.mul(x, mask)`, `torch.div(x, keep)`: the operator written as a function."""
    if len(args) != 2:
        return OTHER
    if name in _MULTIPLY_FUNCTIONS:
        return _binary(cst.Multiply, args[0], args[1])
    if name in _DIVIDE_FUNCTIONS:
        return _binary(cst.Divide, args[0], args[1])
    return OTHER


_MULTIPLY_FUNCTIONS = frozenset({"mul", "multiply"})
_DIVIDE_FUNCTIONS = frozenset({"div", "divide", "true_divide"})


def _kept(kind: Kind, keeps: bool) -> Kind:
    """A method with independent arguments called on a value of this kind."""
    if kind is Kind.INDEPENDENT or kind is Kind.OTHER:
        return kind
    return Kind.SCALED if keeps else Kind.OTHER


def _moved(value: Value) -> Value:
    """The kinds of a value whose values were moved: the input's own become moved ones."""
    return frozenset(Kind.MOVED if kind is Kind.INPUT else kind for kind in value)


def _all_independent(values: Iterable[Value]) -> Value:
    return INDEPENDENT if all(value == INDEPENDENT for value in values) else OTHER


def _parts(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The expressions directly inside `node` (the items of a tuple, the sides of a comparison)."""
    return [child for child in node.children if isinstance(child, cst.BaseExpression)] + [
        grandchild
        for child in node.children
        if not isinstance(child, cst.BaseExpression)
        for grandchild in _parts(child)
    ]


def _bind(target: cst.BaseExpression, value: Value, env: Env) -> None:
    if isinstance(target, cst.Name):
        env.names[target.value] = value
    elif isinstance(target, (cst.Tuple, cst.List)):
        # `x, x_shift = x.chunk(2, dim=-1)`: each name holds a part of the value.
        for element in target.elements:
            _bind(element.value, _moved(value), env)
    elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        # `x[mask] = 0`: part of the tensor now holds other values.
        name = target.value.value
        env.names[name] = _all_independent([env.names.get(name, INDEPENDENT), value])

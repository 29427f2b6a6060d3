"""Python's own semantics for the interpreter: arithmetic, comparisons, strings,
subscripts, comprehensions and the builtins model code uses in init functions."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    ClassPartial,
    ClassRef,
    Const,
    EnumMember,
    Env,
    ExtPartial,
    ExtRef,
    FuncRef,
    Mapping,
    ModRef,
    NewTensor,
    Num,
    Opaque,
    ParamRef,
    Registry,
    Seq,
    SuperRef,
    as_number,
    truth,
)
from initlint.analysis.knowledge.conventions import LAYER_INDEX
from initlint.analysis.model import InitOp
from initlint.analysis.values import Monomial, fraction_of

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

CONSTANTS = {"True": True, "False": False, "None": None}
#: Bases (last name) that make a class an enum, and those whose members equal their values.
ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
MIXED_ENUM_BASES = frozenset({"str", "int", "IntEnum", "StrEnum", "IntFlag"})
BUILTIN_NAMES = frozenset(
    {
        "isinstance",
        "hasattr",
        "getattr",
        "setattr",
        "len",
        "range",
        "enumerate",
        "zip",
        "map",
        "any",
        "all",
        "str",
        "int",
        "float",
        "min",
        "max",
        "abs",
        "print",
        "super",
        "object",
        "dict",
        "list",
        "tuple",
        "sorted",
        "reversed",
        "type",
        "id",
        "repr",
        "bool",
        "round",
        "sum",
        "iter",
        "next",
        "set",
        "frozenset",
        "issubclass",
        "callable",
    }
)
#: Largest constant `range(n)` we unroll; longer ones keep one representative iteration.
UNROLL_LIMIT = 8


@dataclass(frozen=True)
class BoundMethod:
    receiver: Any
    name: str


def number_sum(left: Monomial, right: Monomial, negate: bool) -> Monomial:
    if negate:
        right = right * Monomial.of(-1)
    if left.atoms == right.atoms:
        return Monomial(left.const + right.const, left.atoms, left.powers + right.powers)
    if right.is_constant and right.const == 0:
        return left
    if left.is_constant and left.const == 0:
        return right
    if left.terms is not None:
        for kept, term in left.terms, left.terms[::-1]:
            if term.atoms == right.atoms and term.const + right.const == 0:
                return kept  # `(depth + 1) - 1`
    # `layer_id + 1`, `n_layer + 1`: a new atom named after the sum, so its meaning survives.
    name = f"({left.describe()}{'+' if right.const >= 0 else ''}{right.describe()})"
    return replace(Monomial.atom(name), terms=(left, right))


def binary(
    interp: "Interpreter", operator: cst.BaseBinaryOp | cst.BaseAugOp, left: Any, right: Any, node: cst.CSTNode
) -> Any:
    """`left <operator> right`, augmented assignments included: strings concatenate, a new
    tensor scales its init, numbers stay symbolic, a short list repeats."""
    if _is_string(left) and _is_string(right):
        return Const(left.value + right.value) if isinstance(operator, (cst.Add, cst.AddAssign)) else UNKNOWN
    if isinstance(left, NewTensor) and not isinstance(right, NewTensor):
        return _scaled_tensor(interp, operator, left, right, node)
    a, b = as_number(left), as_number(right)
    if a is None or b is None or _is_string(left) or _is_string(right):
        return _repeated_sequence(operator, left, right)
    return _number_operation(operator, a, b, node)


def _is_string(value: Any) -> bool:
    return isinstance(value, Const) and isinstance(value.value, str)


def _scaled_tensor(
    interp: "Interpreter", operator: cst.BaseBinaryOp | cst.BaseAugOp, tensor: NewTensor, right: Any, node: cst.CSTNode
) -> Any:
    """`torch.randn(...) * std` or `/ scale`: the new tensor's init with its std scaled; any other
    operation on it is not an init we can describe."""
    factor = as_number(right)
    if factor is not None and isinstance(operator, (cst.Divide, cst.DivideAssign)):
        factor = factor.inverse(node)
    if factor is not None and isinstance(operator, (cst.Multiply, cst.Divide, cst.MultiplyAssign, cst.DivideAssign)):
        op = tensor.op
        std = op.std * factor if op.std is not None else None
        return NewTensor(InitOp(op.kind, std, node, op.via, op.certain, f"{op.label} * {interp.code(node)}"))
    return UNKNOWN


def _repeated_sequence(operator: cst.BaseBinaryOp | cst.BaseAugOp, left: Any, right: Any) -> Any:
    """Operands that are not both numbers: only `[block] * n` with a small constant `n` is
    followed, unrolled as a constant `range(n)` is (up to `UNROLL_LIMIT`)."""
    if (
        isinstance(left, Seq)
        and isinstance(right, Const)
        and isinstance(right.value, int)
        and left.repeat is None
        and 0 <= right.value <= UNROLL_LIMIT
    ):
        return Seq(left.items * right.value) if isinstance(operator, cst.Multiply) else UNKNOWN
    return UNKNOWN


def _number_operation(operator: cst.BaseBinaryOp | cst.BaseAugOp, a: Monomial, b: Monomial, node: cst.CSTNode) -> Any:
    """Arithmetic on two numbers, kept symbolic (`std / math.sqrt(2 * n_layer)`): `//` and `%`
    only on constants, `**` only to a small constant power; anything else is unknown."""
    if isinstance(operator, (cst.Add, cst.AddAssign)):
        return Num(number_sum(a, b, False))
    if isinstance(operator, (cst.Subtract, cst.SubtractAssign)):
        return Num(number_sum(a, b, True))
    if isinstance(operator, (cst.Multiply, cst.MultiplyAssign)):
        return Num(a * b)
    if isinstance(operator, (cst.Divide, cst.DivideAssign)):
        inverse = b.inverse(node)
        return Num(a * inverse) if inverse is not None else UNKNOWN
    if isinstance(operator, (cst.Power, cst.PowerAssign)):
        exponent = fraction_of(b.const) if b.is_constant else None
        result = a.pow(exponent, node) if exponent is not None and abs(exponent) <= 8 else None
        return Num(result) if result is not None else UNKNOWN
    if isinstance(operator, (cst.FloorDivide, cst.Modulo)) and a.is_constant and b.is_constant and b.const != 0:
        return Const(a.const // b.const if isinstance(operator, cst.FloorDivide) else a.const % b.const)
    return UNKNOWN


def unary(operator: cst.BaseUnaryOp, value: Any, node: cst.CSTNode) -> Any:
    if isinstance(operator, cst.Not):
        decided = truth(value)
        return Const(not decided) if decided is not None else UNKNOWN
    number = as_number(value)
    if number is None:
        return UNKNOWN
    if isinstance(operator, cst.Minus):
        return Num(number * Monomial.of(-1))
    if isinstance(operator, cst.Plus):
        return Num(number)
    return UNKNOWN


def boolean(interp: "Interpreter", node: cst.BooleanOperation, env: Env, ctx: "Ctx") -> Any:
    """`a or b` is `a` when `a` is true, else `b` (`norm or nn.Identity()` is a module)."""
    left_value = interp.eval(node.left, env, ctx)
    left = truth(left_value)
    is_and = isinstance(node.operator, cst.And)
    if left is False and is_and or left is True and not is_and:
        return left_value
    right_value = interp.eval(node.right, env, ctx)
    if left is not None:
        return right_value
    right = truth(right_value)  # either operand may be the value: only a shared truth is known
    if right is False and is_and or right is True and not is_and:
        return Const(right)
    return UNKNOWN


def _negated(result: bool | None, negate: bool) -> bool | None:
    return result if result is None or not negate else not result


def _identity(left: Any, right: Any) -> bool | None:
    """`x is None`, `a is b` for modules and parameters."""
    if isinstance(right, Const) and right.value is None:
        if isinstance(left, Const):
            return left.value is None
        return False if isinstance(left, (ModRef, ParamRef, NewTensor, Num, Seq, Mapping, FuncRef, ClassRef)) else None
    if isinstance(left, (ModRef, ParamRef)) and isinstance(right, (ModRef, ParamRef)):
        return bool(left == right)
    if isinstance(left, Const) and isinstance(left.value, EnumMember) and isinstance(right, Const):
        return left.value.same(right.value)
    if isinstance(left, Const) and isinstance(right, Const) and isinstance(right.value, bool):
        # `flag is True`: True and False are singletons, so identity is Python's own answer.
        return left.value is right.value
    return None


def _membership(left: Any, right: Any) -> bool | None:
    """`"c_proj" in name`, `name in ("a", "b")`, `key in mapping`."""
    if (
        isinstance(right, Const)
        and isinstance(right.value, str)
        and isinstance(left, Const)
        and isinstance(left.value, str)
    ):
        return left.value in right.value
    if isinstance(right, Seq) and right.repeat is None and isinstance(left, Const):
        values = [item.value for item in right.items if isinstance(item, Const)]
        return left.value in values if len(values) == len(right.items) else None
    if isinstance(right, Mapping) and isinstance(left, Const):
        return True if left.value in right.items else None if right.open else False
    return None


def _operands(left: Any, right: Any) -> tuple[Any, Any] | None:
    """What an ordering compares: constants, constant numbers, or module identities."""
    a, b = as_number(left), as_number(right)
    if isinstance(left, Const) and isinstance(right, Const):
        return left.value, right.value
    if (
        a is not None
        and b is not None
        and a.is_constant
        and b.is_constant
        and not isinstance(left, Opaque)
        and not isinstance(right, Opaque)
    ):
        return a.const, b.const
    if isinstance(left, ModRef) and isinstance(right, ModRef):
        return id(left.node), id(right.node)
    return None


_ORDERINGS: dict[type, Callable[[Any, Any], Any]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.GreaterThan: operator.gt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThanEqual: operator.ge,
}


def _one_layer_test(comparison: cst.BaseCompOp, left: Any, right: Any) -> bool | None:
    """`layer_idx == 0` on the representative block of a stack: it holds for one layer of N, so
    the representative (standing for the layers in general) takes the other path."""
    if not isinstance(comparison, (cst.Equal, cst.NotEqual)):
        return None
    index = Monomial.atom(LAYER_INDEX)
    for a, b in ((left, right), (right, left)):
        if isinstance(a, Num) and a.value == index and isinstance(b, Const) and isinstance(b.value, int):
            return isinstance(comparison, cst.NotEqual)
    return None


def _by_default(value: Any) -> Any:
    """A numeric config field or a root parameter defaulting to None, in a comparison: its default."""
    return value.compared if isinstance(value, Opaque) and value.compared is not None else value


def _compare_one(comparison: cst.BaseCompOp, left: Any, right: Any) -> bool | None:
    left, right = _by_default(left), _by_default(right)
    one_layer = _one_layer_test(comparison, left, right)
    if one_layer is not None:
        return one_layer
    if isinstance(comparison, (cst.Is, cst.IsNot)):
        return _negated(_identity(left, right), isinstance(comparison, cst.IsNot))
    if isinstance(comparison, (cst.In, cst.NotIn)):
        return _negated(_membership(left, right), isinstance(comparison, cst.NotIn))
    ordering = _ORDERINGS.get(type(comparison))
    operands = _operands(left, right)
    if ordering is None or operands is None:
        return None
    try:
        return bool(ordering(*operands))
    except TypeError:
        return None


def _note_assumed_defaults(interp: "Interpreter", *operands: Any) -> None:
    """A comparison decided by a string default (`init_device != "meta"`): the finding names it."""
    for operand in operands:
        if isinstance(operand, Opaque) and operand.assumed is not None:
            label, node = operand.assumed
            interp.enum_defaults.setdefault(label, node)


def compare(interp: "Interpreter", node: cst.Comparison, env: Env, ctx: "Ctx") -> Any:
    left = interp.eval(node.left, env, ctx)
    outcome: bool | None = True
    for target in node.comparisons:
        right = interp.eval(target.comparator, env, ctx)
        if isinstance(right, Registry):
            right = Mapping(interp.registry_entries(right))  # `name in norms`: by what is registered
        result = _compare_one(target.operator, left, right)
        if result is not None:
            _note_assumed_defaults(interp, left, right)
        if result is False:
            return Const(False)
        if result is None:
            outcome = None
        left = right
    return Const(True) if outcome else UNKNOWN


def subscript(interp: "Interpreter", node: cst.Subscript, env: Env, ctx: "Ctx") -> Any:
    base = interp.eval(node.value, env, ctx)
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return UNKNOWN
    key = interp.eval(node.slice[0].slice.value, env, ctx)
    if isinstance(base, Seq):
        if base.repeat is not None:
            return base.items[0] if base.items else UNKNOWN
        if isinstance(key, Const) and isinstance(key.value, int) and -len(base.items) <= key.value < len(base.items):
            return base.items[key.value]
        return UNKNOWN
    if isinstance(base, Opaque) and _is_loop_index(key) and ctx.repeat == Monomial.atom(f"len({base.name})"):
        return stage_entry(base)
    if isinstance(base, (Mapping, Opaque)):
        return config_entry(interp, base, key, UNKNOWN)
    if isinstance(base, ModRef):
        children = base.node.children
        if isinstance(key, Const) and str(key.value) in children:
            return ModRef(children[str(key.value)])
        if isinstance(key, Const) and isinstance(key.value, int) and key.value < 0 and children:
            return ModRef(list(children.values())[key.value]) if -len(children) <= key.value else UNKNOWN
        if not isinstance(key, Const) and len(children) == 1:
            return ModRef(next(iter(children.values())))
        return UNKNOWN
    if (
        isinstance(base, Const)
        and isinstance(base.value, str)
        and isinstance(key, Const)
        and isinstance(key.value, int)
    ):
        try:
            return Const(base.value[key.value])
        except IndexError:
            return UNKNOWN
    return UNKNOWN


def _is_loop_index(value: Any) -> bool:
    return isinstance(value, Num) and value.value == Monomial.atom(LAYER_INDEX)


def stage_entry(per_stage: Opaque) -> Num:
    """`depths[i]` in `for i in range(len(depths))`: one stage's block count. That loop runs its
    body once, for every stage; a loop nested in it that builds `depths[i]` blocks therefore
    builds `sum(depths)` of them in all, the depth the residual stream runs through (the stages
    share one stream: a down-sampling layer between them is no residual add)."""
    return Num(Monomial.atom(f"sum({per_stage.name})"))


def config_entry(interp: "Interpreter", config: Mapping | Opaque, key: Any, default: Any) -> Any:
    """`cfg["n_layers"]`, `cfg.get("n_layer", 12)`: an entry of a dict config. A depth stays the
    symbol it is named by, whatever number the defaults hold: the depth factor is `1/sqrt(2 * n_layers)`,
    not a constant that happens to equal it."""
    if isinstance(key, Opaque) and key.default is not None and isinstance(config, Mapping):
        key = Const(key.default)  # `ATTENTION_CLASSES[attn_implementation]`, by the default
    if not isinstance(key, Const) or not isinstance(key.value, str):
        return UNKNOWN
    if isinstance(config, Opaque):
        return Opaque(key.value)  # like `config.n_layers` on a config we cannot see
    value = config.items.get(key.value, default)
    if key.value in interp.depth_names and as_number(value) is not None:
        return Opaque(key.value)
    return value


def iterate(interp: "Interpreter", value: Any) -> Seq | None:
    if isinstance(value, Seq):
        return value
    if isinstance(value, Mapping):
        return Seq([Const(key) for key in value.items])
    if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
        children = list(value.node.children.values())
        repeat = children[0].repeat if len(children) == 1 else None
        return Seq([ModRef(child) for child in children], repeat)
    return None


def comprehension(interp: "Interpreter", node: cst.BaseComp, env: Env, ctx: "Ctx") -> Any:
    from dataclasses import replace

    results: list[Any] = []
    repeat: Monomial | None = None
    unseen = False

    def run(clause: cst.CompFor | None, scope: Env, inner: "Ctx") -> None:
        nonlocal repeat, unseen
        if clause is None:
            if isinstance(node, cst.DictComp):
                results.append((interp.eval(node.key, scope, inner), interp.eval(node.value, scope, inner)))
            elif isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
                results.append(interp.eval(node.elt, scope, inner))
            return
        iterable = iterate(interp, interp.eval(clause.iter, scope, inner))
        if iterable is None:
            unseen = True
            return
        items = iterable.items[:1] if iterable.repeat is not None else iterable.items[:4000]
        if iterable.repeat is not None:
            repeat = iterable.repeat
            inner = replace(inner, repeat=iterable.repeat)
        for item in items:
            local = scope.child()
            interp.assign(clause.target, item, local, inner, node)
            if all(truth(interp.eval(cond.test, local, inner)) is not False for cond in clause.ifs):
                run(clause.inner_for_in, local, inner)

    if isinstance(node, cst.DictComp):
        run(node.for_in, env.child(), ctx)
        return Mapping({(k.value if isinstance(k, Const) else str(i)): v for i, (k, v) in enumerate(results)})
    run(node.for_in, env.child(), ctx)
    # Over values we cannot see (`[w // 2 for w in window_size]`) the result is unknown, not empty:
    # an empty list would decide `len(...) != 2` and the guard it raises in.
    return UNKNOWN if unseen else Seq(results, repeat)


def call_python_builtin(
    interp: "Interpreter",
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.CSTNode,
    extra: "dict[str, Builtin] | None" = None,
) -> Any:
    """Builtins and a few stdlib functions (`math`, `re`, `functools.partial`); None if not one
    (or not called in a form we model), so the caller treats it as a call from elsewhere.
    `extra` holds builtins whose meaning depends on modules (`isinstance`, `setattr`): the torch
    layer passes them in, so this module never imports it."""
    handler = (extra or {}).get(name) or BUILTIN_HANDLERS.get(name)
    return handler(interp, name, args, kwargs, ctx, call) if handler is not None else None


def _len(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    value = args[0]
    if isinstance(value, ModRef):
        children = list(value.node.children.values())
        if len(children) == 1 and children[0].repeat is not None:
            return Num(children[0].repeat)
        return Const(len(children))
    if isinstance(value, Seq):
        return Num(value.repeat) if value.repeat is not None else Const(len(value.items))
    if isinstance(value, Const) and isinstance(value.value, str):
        return Const(len(value.value))
    if isinstance(value, Opaque):
        return Num(Monomial.atom(f"len({value.name})"))  # `range(len(depths))`: one pass per stage
    return UNKNOWN


def _sum(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`sum(depths)` of a per-stage list we cannot see: the blocks of every stage, all told (the
    depth a loop over the stages stacks, see `stage_entry`)."""
    if len(args) == 1 and isinstance(args[0], Opaque):
        return Num(Monomial.atom(f"sum({args[0].name})"))
    return UNKNOWN


def _range(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`range(stop)` or `range(start, stop)`: a short constant one unrolled, any other one
    pass standing for `stop - start` (layers numbered from 1: `range(1, depth + 1)`)."""
    bounds = [as_number(a) for a in args]
    if not 1 <= len(bounds) <= 2 or any(bound is None for bound in bounds):
        return UNKNOWN
    start, stop = (Monomial.of(0), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    assert start is not None and stop is not None
    count = number_sum(stop, start, True)
    if count.is_constant and start.is_constant and 0 <= count.const <= UNROLL_LIMIT:
        first = start.const
        if float(first).is_integer() and float(count.const).is_integer():
            return Seq([Const(int(first) + i) for i in range(int(count.const))])
    return Seq([Num(number_sum(Monomial.atom(LAYER_INDEX), start, False))], count)


def _enumerate(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    seq = iterate(interp, args[0])
    if seq is None:
        return UNKNOWN
    if seq.repeat is not None:
        return Seq([Seq([Num(Monomial.atom(LAYER_INDEX)), item]) for item in seq.items], seq.repeat)
    return Seq([Seq([Const(i), item]) for i, item in enumerate(seq.items)])


def _zip(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    seqs = [iterate(interp, a) for a in args]
    if all(s is not None and s.repeat is None for s in seqs):
        return Seq([Seq(list(group)) for group in zip(*(s.items for s in seqs if s is not None))])
    return UNKNOWN


#: Items `map` calls its function on, one after the other; a longer map is left unknown.
MAX_MAPPED = 16


def _map(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`map(f, (a, b))` over items we know: f called on each, in order (`get_block, get_res =
    map(cache_fn, (get_block, get_res))`)."""
    if len(args) < 2 or kwargs or not isinstance(call, cst.Call):
        return None
    seqs = [iterate(interp, a) for a in args[1:]]
    if any(s is None or s.repeat is not None or len(s.items) > MAX_MAPPED for s in seqs):
        return UNKNOWN
    groups = zip(*(s.items for s in seqs if s is not None))
    return Seq([interp.call_value(args[0], list(group), {}, ctx, call) for group in groups])


def _any_all(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    seq = iterate(interp, args[0])
    if seq is None:
        return UNKNOWN
    values = [truth(item) for item in seq.items]
    if name == "any":
        return Const(True) if True in values else (Const(False) if None not in values else UNKNOWN)
    return Const(False) if False in values else (Const(True) if None not in values else UNKNOWN)


def _number_cast(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`float(x)`, `int(x)`, `abs(x)`, `round(x)`: the number, kept symbolic."""
    if not args:
        return None
    number = as_number(args[0])
    if number is None:
        return UNKNOWN
    if name == "abs" and number.is_constant:
        return Num(Monomial.of(abs(number.const)))
    return Num(number)


def _min_max(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    numbers = [as_number(a) for a in args]
    constants = [n.const for n in numbers if n is not None and n.is_constant]
    if numbers and len(constants) == len(numbers):
        return Num(Monomial.of(min(constants) if name == "min" else max(constants)))
    return UNKNOWN


def _str(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    return Const(str(args[0].value)) if isinstance(args[0], Const) else Opaque("str")


def _sequence(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`list(x)`, `tuple(x)`, `sorted(x)`, `reversed(x)`."""
    if not args:
        return None
    seq = iterate(interp, args[0])
    if seq is None:
        return UNKNOWN
    items = list(reversed(seq.items)) if name == "reversed" else list(seq.items)
    return Seq(items, seq.repeat)


def _dict(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`dict(a=...)`, `dict(mapping)`, and `OrderedDict([("c_fc", ...), ...])` from key-value pairs,
    in order (`nn.Sequential(OrderedDict(...))` names its children by those keys)."""
    source = args[0] if args else None
    merged = dict(source.items) if isinstance(source, Mapping) else {}
    if isinstance(source, Seq) and source.repeat is None:
        for pair in source.items:
            if not (isinstance(pair, Seq) and len(pair.items) == 2 and isinstance(pair.items[0], Const)):
                return UNKNOWN
            merged[pair.items[0].value] = pair.items[1]
    merged.update(kwargs)
    return Mapping(merged)


def _super(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    return SuperRef(ctx.self_value, ctx.owner) if ctx.owner is not None else UNKNOWN


#: The power each math function raises its argument to (`pow` takes it as its second argument).
_POWERS = {"sqrt": Fraction(1, 2), "rsqrt": Fraction(-1, 2)}


def _math_power(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`sqrt`, `rsqrt`, `pow` keep a std symbolic; `exp` and `log` of a depth are not modelled."""
    if not args:
        return None
    number = as_number(args[0])
    if number is None:
        return UNKNOWN
    exponent: Fraction | None = _POWERS.get(name)
    if name == "pow" and len(args) == 2:
        power = as_number(args[1])
        exponent = fraction_of(power.const) if power is not None and power.is_constant else None
    result = number.pow(exponent, call) if exponent is not None else None
    return Num(result) if result is not None else UNKNOWN


def _regex_match(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if len(args) < 2:
        return None
    pattern, text = args[0], args[1]
    if (
        isinstance(pattern, Const)
        and isinstance(text, Const)
        and isinstance(pattern.value, str)
        and isinstance(text.value, str)
    ):
        try:
            found = getattr(re, name.split(".")[1])(pattern.value, text.value)
        except re.error:
            return UNKNOWN
        return Const(found is not None)
    return UNKNOWN


def _partial(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if args and isinstance(args[0], ExtRef):
        return ExtPartial(args[0].name, tuple(args[1:]), tuple(kwargs.items()))
    if args and isinstance(args[0], ClassRef):
        return ClassPartial(args[0].cls, tuple(args[1:]), tuple(kwargs.items()))
    if args and isinstance(args[0], ClassPartial):
        outer = args[0]
        return ClassPartial(outer.cls, outer.args + tuple(args[1:]), outer.kwargs + tuple(kwargs.items()))
    if args and isinstance(args[0], ExtPartial):
        inner = args[0]
        return ExtPartial(inner.name, inner.args + tuple(args[1:]), inner.kwargs + tuple(kwargs.items()))
    if not args or not isinstance(args[0], FuncRef):
        return None
    ref = args[0]
    return FuncRef(
        ref.func, ref.owner, ref.bound, ref.partial_args + tuple(args[1:]), ref.partial_kwargs + tuple(kwargs.items())
    )


Builtin = Callable[["Interpreter", str, list[Any], dict[Any, Any], "Ctx", cst.CSTNode], Any]


def _callable(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`callable(x)`: a class or function of the code is; a number, string or container is not."""
    if len(args) != 1:
        return None
    if isinstance(args[0], (ClassRef, ClassPartial, FuncRef, ExtPartial, BoundMethod)):
        return Const(True)
    return Const(False) if isinstance(args[0], (Const, Num, Seq, Mapping)) else UNKNOWN


def _copy(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`copy.deepcopy(DEFAULTS)`: a dict or list with the same entries, that later writes to the
    copy leave the original alone."""
    return copied(args[0]) if len(args) == 1 and isinstance(args[0], (Const, Num, Seq, Mapping)) else None


def copied(value: Any) -> Any:
    if isinstance(value, Mapping):
        return Mapping({key: copied(item) for key, item in value.items.items()})
    if isinstance(value, Seq):
        return Seq([copied(item) for item in value.items], value.repeat)
    return value


BUILTIN_HANDLERS: dict[str, Builtin] = {
    "len": _len,
    "sum": _sum,
    "range": _range,
    "enumerate": _enumerate,
    "zip": _zip,
    "map": _map,
    "any": _any_all,
    "all": _any_all,
    **dict.fromkeys(("float", "int", "abs", "round"), _number_cast),
    "min": _min_max,
    "max": _min_max,
    "str": _str,
    "repr": _str,
    **dict.fromkeys(("list", "tuple", "sorted", "reversed"), _sequence),
    **dict.fromkeys(("dict", "collections.OrderedDict"), _dict),
    "super": _super,
    **dict.fromkeys(("sqrt", "pow", "exp", "log", "rsqrt"), _math_power),
    **dict.fromkeys(("re.match", "re.search", "re.fullmatch"), _regex_match),
    "functools.partial": _partial,
    "partial": _partial,
    "callable": _callable,
    **dict.fromkeys(("copy.copy", "copy.deepcopy"), _copy),
}


def string_method(receiver: str, name: str, args: list[Any]) -> Any:
    values = [a.value if isinstance(a, Const) else a for a in args]
    if isinstance(values[0] if values else "", Seq):
        seq = values[0]
        if seq.repeat is None and all(isinstance(i, Const) for i in seq.items):
            values[0] = tuple(i.value for i in seq.items)
    if any(not isinstance(v, (str, int, tuple, type(None))) for v in values):
        return UNKNOWN
    try:
        if name in (
            "endswith",
            "startswith",
            "count",
            "find",
            "rfind",
            "replace",
            "lower",
            "upper",
            "strip",
            "lstrip",
            "rstrip",
            "removeprefix",
            "removesuffix",
        ):
            return Const(getattr(receiver, name)(*values))
        if name in ("split", "rsplit"):
            return Seq([Const(part) for part in getattr(receiver, name)(*values)])
    except (TypeError, ValueError):
        return UNKNOWN
    return UNKNOWN

"""Python's operators for the interpreter: arithmetic (numbers kept symbolic, so
`std / math.sqrt(2 * n_layer)` keeps its depth), a fresh tensor scaled by a number, `[block] * n`,
`not`, `and`/`or`, comparisons (identity, membership, orderings, `layer_idx == 0` on the
representative block, a comparison decided by a config default), `isinstance` of a plain
value against a builtin type (`isinstance(heads, tuple)`), and whether a `case` pattern of a
`match` matches its subject."""

from __future__ import annotations

import operator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    Choice,
    ClassRef,
    Const,
    EnumMember,
    Env,
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
    as_number,
    default_number,
    truth,
)
from initlint.analysis.knowledge.conventions import LAYER_INDEX
from initlint.analysis.model import InitOp
from initlint.analysis.values import Monomial, fraction_of

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

#: Largest constant `range(n)` we unroll; longer ones keep one representative iteration.
UNROLL_LIMIT = 8
#: The longest pattern of constants followed when repeated a symbolic number of times.
MAX_PERIOD = 8


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
    if isinstance(right, NewTensor) and not isinstance(left, NewTensor) and isinstance(operator, cst.Multiply):
        return _scaled_tensor(interp, operator, right, left, node, swapped=True)  # `init_values * torch.ones(dim)`
    if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(operator, (cst.Add, cst.AddAssign)):
        return _concatenated(left, right)
    a, b = as_number(left), as_number(right)
    if a is None or b is None or _is_string(left) or _is_string(right):
        return _repeated_sequence(operator, left, right)
    return _number_operation(operator, a, b, node)


def _is_string(value: Any) -> bool:
    return isinstance(value, Const) and isinstance(value.value, str)


def _scaled_tensor(
    interp: "Interpreter",
    operator: cst.BaseBinaryOp | cst.BaseAugOp,
    tensor: NewTensor,
    right: Any,
    node: cst.CSTNode,
    swapped: bool = False,
) -> Any:
    """`torch.randn(...) * std` or `/ scale`: the new tensor's init with its std scaled; any other
    operation on it is not an init we can describe."""
    factor = as_number(right)
    if factor is not None and isinstance(operator, (cst.Divide, cst.DivideAssign)):
        factor = factor.inverse(node)
    if factor is not None and isinstance(operator, (cst.Multiply, cst.Divide, cst.MultiplyAssign, cst.DivideAssign)):
        op = tensor.op
        std = op.std * factor if op.std is not None else None
        label = f"{op.label} {_operator_text(operator)} {interp.code(_factor_operand(node, swapped))}"
        support = _scaled_fill(op, operator, right)
        # `torch.ones(d) * init_values`: a constant fill, of the value the factor makes it.
        kind = "constant" if op.kind == "ones" and support != (1.0, 1.0) else op.kind
        return NewTensor(InitOp(kind, std, node, op.via, op.certain, label, support=support))
    return UNKNOWN


def _scaled_fill(op: InitOp, operator: cst.BaseBinaryOp | cst.BaseAugOp, factor: Any) -> tuple[float, float] | None:
    """`ls_init * torch.ones(d)`: a constant tensor holds its value scaled, where the model built
    with its defaults knows the factor (a number, a config field's or root parameter's default)."""
    if op.support is None or op.support[0] != op.support[1]:
        return None
    number = default_number(factor)
    value: float | None = None
    if op.support[0] == 0:
        value = 0.0
    elif number is not None and isinstance(operator, (cst.Divide, cst.DivideAssign)):
        value = op.support[0] / number if number else None
    elif number is not None:
        value = op.support[0] * number
    return (value, value) if value is not None else None


def _operator_text(operator: cst.BaseBinaryOp | cst.BaseAugOp) -> str:
    return "/" if isinstance(operator, (cst.Divide, cst.DivideAssign)) else "*"


def _factor_operand(node: cst.CSTNode, swapped: bool) -> cst.CSTNode:
    """The factor of `tensor * factor`, `factor * tensor` or `tensor *= factor`: the tensor's own
    label says the rest."""
    if isinstance(node, cst.BinaryOperation):
        return node.left if swapped else node.right
    if isinstance(node, cst.AugAssign):
        return node.value
    return node


def _concatenated(left: Seq, right: Seq) -> Any:
    """`[Linear(d, h, act)] + [Linear(h, d)]`: the items of both lists, in order. A list a
    comprehension over a count we cannot unroll fills stands for all its items at once: it joins
    an empty list only."""
    if left.repeat is None and right.repeat is None:
        return Seq(left.items + right.items, written_as=left.written_as)
    if not left.items or not right.items:
        kept = right if not left.items else left
        return Seq(list(kept.items), kept.repeat, kept.written_as)
    return UNKNOWN


def _repeated_sequence(operator: cst.BaseBinaryOp | cst.BaseAugOp, left: Any, right: Any) -> Any:
    """Operands that are not both numbers: `[block] * n` with a small constant `n` is followed,
    unrolled as a constant `range(n)` is (up to `UNROLL_LIMIT`). A one-entry setting times a count
    we cannot unroll (`heads * depth`) is that entry once per pass, as `range(depth)`; a short
    pattern of constants repeated a symbolic number of times (`("attn", "mlp") * depth`, the kind
    of each layer in turn) keeps its period: each item stands for its share of all of them, as the
    layers a loop appends one of several kinds of per pass do."""
    if isinstance(right, Seq) and not isinstance(left, Seq):
        left, right = right, left  # `depth * (heads,)`
    count = as_number(right)
    if isinstance(operator, cst.Multiply) and count is not None and not count.is_constant:
        if _broadcast_setting(left):
            return Seq(list(left.items), count, left.written_as)
        if (
            isinstance(left, Seq)
            and left.repeat is None
            and 0 < len(left.items) <= MAX_PERIOD
            and all(isinstance(item, Const) for item in left.items)
        ):
            return Seq(list(left.items), count * Monomial.of(len(left.items)))
    if (
        isinstance(left, Seq)
        and isinstance(right, Const)
        and isinstance(right.value, int)
        and left.repeat is None
        and 0 <= right.value <= UNROLL_LIMIT
    ):
        return (
            Seq(left.items * right.value, written_as=left.written_as) if isinstance(operator, cst.Multiply) else UNKNOWN
        )
    return UNKNOWN


def _broadcast_setting(value: Any) -> bool:
    """A tuple of one number or flag (`(heads,)`): repeating it repeats a per-layer setting.
    Modules are left out, since `[block] * n` shares one module n times; so are strings, which
    name layer kinds (`[kind] * depth`), a pattern of kinds the stack model does not follow."""
    if not (isinstance(value, Seq) and value.repeat is None and len(value.items) == 1):
        return False
    item = _by_default(value.items[0])
    return isinstance(item, (Num, Opaque)) or isinstance(item, Const) and not isinstance(item.value, str)


#: Builtin types `isinstance` can test a plain value against, by the Python types they stand for.
_BUILTIN_TYPES: dict[str, type] = {
    "builtins.tuple": tuple,
    "builtins.list": list,
    "builtins.dict": dict,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.str": str,
    "builtins.bool": bool,
}


def builtin_isinstance(interp: "Interpreter", value: Any, classes: Any) -> Any:
    """`isinstance(heads, tuple)` on a value that is no module: decided where the value's type is
    known (a constant, a number, a tuple or list as written, a root parameter by its default).
    None when `classes` are not all builtin types."""
    targets = classes.items if isinstance(classes, Seq) and classes.repeat is None else [classes]
    if not targets or not all(isinstance(t, ExtRef) and t.name in _BUILTIN_TYPES for t in targets):
        return None
    kinds = tuple(_BUILTIN_TYPES[t.name] for t in targets)
    example = _type_example(interp, value)
    if example is _UNSEEN:
        return UNKNOWN
    _note_assumed_defaults(interp, value)
    if isinstance(example, Monomial):  # a symbolic number: an int or a float, never a container
        return Const(False) if not any(issubclass(kind, (int, float)) for kind in kinds) else UNKNOWN
    return Const(isinstance(example, kinds))


def builtin_type(interp: "Interpreter", value: Any) -> Any:
    """`type(heads)` of a value that is no module, as the builtin class it names where the value's
    type is known; a number of unknown type is an int or a float, either of which a test like
    `type(heads) is not tuple` may decide."""
    example = _type_example(interp, value)
    if example is _UNSEEN:
        return UNKNOWN
    _note_assumed_defaults(interp, value)
    if isinstance(example, Monomial):
        return Choice((ExtRef("builtins.int"), ExtRef("builtins.float")))
    names = [name for name, kind in _BUILTIN_TYPES.items() if type(example) is kind]
    return ExtRef(names[0]) if names else UNKNOWN


_UNSEEN = object()


def _type_example(interp: "Interpreter", value: Any) -> Any:
    """A Python value of the same type as `value`, a Monomial for a number of unknown type, or
    `_UNSEEN`. A value typed with a config class of the code (`block: BlockConfig | dict[str,
    BlockConfig]`) is an instance of it: no builtin container or number, unless it derives one."""
    if isinstance(value, Const) and not isinstance(value.value, EnumMember):
        return value.value
    if isinstance(value, Num):
        return value.value
    if isinstance(value, Seq) and value.written_as is not None:
        return () if value.written_as == "tuple" else []
    if isinstance(value, Mapping) and not value.open:
        return {}
    if isinstance(value, Opaque) and value.default_type is not None:
        return 0 if value.default_type == "int" else 0.0
    if isinstance(value, Opaque) and value.compared is not None:
        return _type_example(interp, value.compared)  # the default comparisons already decide by
    if isinstance(value, Opaque) and value.fields is not None:
        bases = {base.rpartition(".")[2] for base in interp.index.base_chain(value.fields)}
        return _UNSEEN if bases & _BUILTIN_BASES else _INSTANCE
    return _UNSEEN


#: An instance of a class of the code, none of the builtin types.
_INSTANCE = object()
#: Bases that make a class of the code a builtin type (or one `isinstance` may take for it).
_BUILTIN_BASES = frozenset({*(name.rpartition(".")[2] for name in _BUILTIN_TYPES), "NamedTuple", "TypedDict"})


def _number_operation(operator: cst.BaseBinaryOp | cst.BaseAugOp, a: Monomial, b: Monomial, node: cst.CSTNode) -> Any:
    """Arithmetic on two numbers, kept symbolic (`std / math.sqrt(2 * n_layer)`): `%` only on
    constants, `**` only to a small constant power; anything else is unknown. `//` on a named
    size is kept as a division: a monomial tracks how a value grows with the sizes it names, and
    `hidden // heads` (the head width) or `depth // 2` grows as the quotient does, rounding
    aside, so `(heads * head_dim) ** -0.5` is a width factor and never hides a depth one."""
    if isinstance(operator, (cst.Add, cst.AddAssign)):
        return Num(number_sum(a, b, False))
    if isinstance(operator, (cst.Subtract, cst.SubtractAssign)):
        return Num(number_sum(a, b, True))
    if isinstance(operator, (cst.Multiply, cst.MultiplyAssign)):
        return Num(a * b)
    if isinstance(operator, (cst.Divide, cst.DivideAssign)) or _symbolic_floor_division(operator, a, b):
        inverse = b.inverse(node)
        return Num(a * inverse) if inverse is not None else UNKNOWN
    if isinstance(operator, (cst.Power, cst.PowerAssign)):
        exponent = fraction_of(b.const) if b.is_constant else None
        result = a.pow(exponent, node) if exponent is not None and abs(exponent) <= 8 else None
        return Num(result) if result is not None else UNKNOWN
    if isinstance(operator, (cst.FloorDivide, cst.Modulo)) and a.is_constant and b.is_constant and b.const != 0:
        return Const(a.const // b.const if isinstance(operator, cst.FloorDivide) else a.const % b.const)
    return UNKNOWN


def _symbolic_floor_division(operator: cst.BaseBinaryOp | cst.BaseAugOp, a: Monomial, b: Monomial) -> bool:
    return isinstance(operator, (cst.FloorDivide, cst.FloorDivideAssign)) and not (a.is_constant and b.is_constant)


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
    if isinstance(left, ExtRef) and isinstance(right, ExtRef) and {left.name, right.name} <= _BUILTIN_TYPES.keys():
        return left.name == right.name  # `type(heads) is tuple`: each builtin class is one object
    if isinstance(left, Const) and isinstance(left.value, EnumMember) and isinstance(right, Const):
        return left.value.same(right.value)
    if isinstance(left, Const) and isinstance(right, Const) and isinstance(right.value, bool):
        # `flag is True`: True and False are singletons, so identity is Python's own answer.
        return left.value is right.value
    return None


def _membership(left: Any, right: Any) -> bool | None:
    """`"c_proj" in name`, `name in ("a", "b")`, `key in mapping`; nothing is in an empty
    tuple or list (`layer in moe_layers` with `moe_layers=()`)."""
    if isinstance(right, Const) and isinstance(right.value, (tuple, list)) and not right.value:
        return False
    if isinstance(right, Seq) and right.repeat is None and not right.items:
        return False
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
    if isinstance(right, ModRef) and isinstance(left, Const) and right.node.type_name.endswith("ModuleDict"):
        # `"norm" in block` on an `nn.ModuleDict`: a key it certainly holds; one it lacks may
        # have been left out of our model of it, so that stays undecided.
        child = right.node.children.get(str(left.value))
        return True if child is not None and not child.optional else None
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


ORDERINGS: dict[type, Callable[[Any, Any], Any]] = {
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
    if isinstance(left, Choice) or isinstance(right, Choice):
        lefts = left.options if isinstance(left, Choice) else (left,)
        rights = right.options if isinstance(right, Choice) else (right,)
        answers = {_compare_one(comparison, a, b) for a in lefts for b in rights}
        return answers.pop() if len(answers) == 1 else None
    one_layer = _one_layer_test(comparison, left, right)
    if one_layer is not None:
        return one_layer
    if isinstance(comparison, (cst.Is, cst.IsNot)):
        return _negated(_identity(left, right), isinstance(comparison, cst.IsNot))
    if isinstance(comparison, (cst.In, cst.NotIn)):
        return _negated(_membership(left, right), isinstance(comparison, cst.NotIn))
    ordering = ORDERINGS.get(type(comparison))
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


def string_value(interp: "Interpreter", value: Any) -> str | None:
    """A string, or the string default of a root parameter (`norm_layer="LayerNorm"`), which the
    model built with its defaults has."""
    chosen = _by_default(value)
    if not (isinstance(chosen, Const) and isinstance(chosen.value, str)):
        return None
    _note_assumed_defaults(interp, value)
    return chosen.value


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


def pattern_matches(
    interp: "Interpreter", pattern: cst.MatchPattern, subject: Any, env: Env, ctx: "Ctx"
) -> bool | None:
    """Whether a `case` pattern matches the subject of a `match`, where the values decide it: a
    literal or a dotted constant (`case "gqa":`, `case Kind.GROUPED:`) by `==`, `None`, `True`
    and `False` by identity, `_` and a bare capture always, an or-pattern by its alternatives.
    Class, sequence and mapping patterns stay undecided."""
    if isinstance(pattern, cst.MatchAs):
        return True if pattern.pattern is None else pattern_matches(interp, pattern.pattern, subject, env, ctx)
    if isinstance(pattern, cst.MatchOr):
        answers = [pattern_matches(interp, element.pattern, subject, env, ctx) for element in pattern.patterns]
        return True if True in answers else False if all(answer is False for answer in answers) else None
    if isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
        comparison = cst.Equal() if isinstance(pattern, cst.MatchValue) else cst.Is()
        value = interp.eval(pattern.value, env, ctx)
        result = _compare_one(comparison, subject, value)
        if result is not None:
            _note_assumed_defaults(interp, subject, value)
        return result
    return None

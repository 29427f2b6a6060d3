"""Python's builtins and the few standard-library functions model code calls in its init
(`len`, `range`, `enumerate`, `zip`, `map`, `min`, `dict`, `super`, `math.sqrt`, `re.match`,
`functools.partial`, `copy.deepcopy`, ...), each modelled as far as the init plan needs it."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    Choice,
    ClassPartial,
    ClassRef,
    Const,
    ExtPartial,
    ExtRef,
    FuncRef,
    Mapping,
    ModRef,
    Namespace,
    Num,
    Opaque,
    Seq,
    SuperRef,
    as_number,
    truth,
)
from initlint.analysis.knowledge.conventions import ATTRIBUTE_DICTS, DEFAULTS_SECOND_ATTRIBUTE_DICTS, LAYER_INDEX
from initlint.analysis.python_operators import UNROLL_LIMIT, number_sum
from initlint.analysis.python_semantics import BoundMethod, iterate, stages_of
from initlint.analysis.values import Monomial, fraction_of

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


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
    if len(args) == 1 and isinstance(args[0], Choice):
        return _range_of_choice(interp, args[0], ctx, call)
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


def _range_of_choice(interp: "Interpreter", choice: Choice, ctx: "Ctx", call: cst.CSTNode) -> Any:
    """`range(n_experts if is_moe_layer else 1)`: at least one pass whichever count it is, when
    each is a symbol or a constant of at least 1; one representative pass standing for the
    symbolic count (`nn.ModuleList([Expert() for _ in range(count)])` holds experts either way)."""
    counts = [as_number(option) for option in choice.options]
    symbolic = [count for count in counts if count is not None and not count.is_constant]
    constants_positive = all(count is not None and (not count.is_constant or count.const >= 1) for count in counts)
    if len(symbolic) != 1 or not constants_positive:
        return UNKNOWN
    return _range(interp, "range", [Num(symbolic[0])], {}, ctx, call)


def _enumerate(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if not args:
        return None
    seq = iterate(interp, args[0])
    if seq is None and isinstance(args[0], Opaque):
        # `enumerate(depths)` over a list handed in that cannot be seen: one pass per stage, as
        # `for depth in depths:` walks it.
        seq = stages_of(args[0])
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
    known = [s for s in seqs if s is not None]
    if known and all(s.repeat is None for s in known):
        # `zip(strides, dims, windows)` zips settings of one entry per stage: where some cannot
        # be seen, the loop still runs once per entry of those that can, with unknown partners.
        length = min(len(s.items) for s in known)
        return Seq([Seq([s.items[i] if s is not None else UNKNOWN for s in seqs]) for i in range(length)])
    if any(isinstance(a, Opaque) for a in args) and not known:
        # `zip(dim_pairs, depths)` over lists handed in (or computed from them) that cannot be
        # seen: one pass per stage, each list's entry for it (`stages_of`) or unknown.
        stages = [stages_of(a) if isinstance(a, Opaque) else None for a in args]
        count = next(stage.repeat for stage in stages if stage is not None)
        return Seq([Seq([stage.items[0] if stage is not None else UNKNOWN for stage in stages])], count)
    repeats = {s.repeat for s in seqs if s is not None}
    if all(s is not None for s in seqs) and len(repeats) == 1 and None not in repeats:
        # `zip(range(depth), heads_per_layer)` over two sequences as long as each other: one
        # representative pass of the loop, pairing their representatives. Where one keeps a
        # period (`zip(("attn", "mlp") * depth, (0,) * n_layers)`, the kind of each layer beside
        # a setting that is the same for all), one pass per item of the period, each paired with
        # the representative of the sequences of one item.
        periods = {len(s.items) for s in seqs if s is not None} - {1}
        period = periods.pop() if len(periods) == 1 else 1
        columns = [s.items * period if len(s.items) == 1 else s.items[:period] for s in seqs if s is not None]
        return Seq([Seq(list(group)) for group in zip(*columns)], repeats.pop())
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


def _filter(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`filter(keep, layers)` over items we know: those `keep` holds for, in order (`nn.Sequential(
    *filter(exists, (conv, None, proj)))` builds the layers that are set). One item `keep` cannot
    decide for leaves the result unknown."""
    if len(args) != 2 or kwargs or not isinstance(call, cst.Call) or isinstance(args[0], Const):
        return None
    seq = iterate(interp, args[1])
    if seq is None or seq.repeat is not None or len(seq.items) > MAX_MAPPED:
        return UNKNOWN
    kept = []
    for item in seq.items:
        verdict = truth(interp.call_value(args[0], [item], {}, ctx, call))
        if verdict is None:
            return UNKNOWN
        if verdict:
            kept.append(item)
    return Seq(kept)


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
    """`list(x)`, `tuple(x)`, `sorted(x)`, `reversed(x)`; `tuple()` is the constant `()`."""
    if not args:
        return Const(()) if name == "tuple" and not kwargs else None
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
    if isinstance(source, Seq) and source.repeat is not None:
        return _repeated_pairs(source, kwargs)
    if isinstance(source, Seq) and source.repeat is None:
        for pair in source.items:
            if not (isinstance(pair, Seq) and len(pair.items) == 2 and isinstance(pair.items[0], Const)):
                return UNKNOWN
            merged[pair.items[0].value] = pair.items[1]
    merged.update(kwargs)
    return Mapping(merged)


def _repeated_pairs(source: Seq, kwargs: dict[Any, Any]) -> Any:
    """`OrderedDict(pairs)` of a list a loop of unknown length filled with `(f"layer_{i}", Block())`:
    one representative entry per pair a pass appends, repeated as often as the loop runs, as a
    dict filled under such keys is (`blocks[f"block_{i}"] = Block()`). Keys we can name would
    overwrite each other pass after pass: not modelled."""
    entries: dict[Any, Any] = {}
    for position, pair in enumerate(source.items):
        if not (isinstance(pair, Seq) and len(pair.items) == 2 and isinstance(pair.items[1], ModRef)):
            return UNKNOWN
        if isinstance(pair.items[0], Const) or kwargs:
            return UNKNOWN
        entries[str(position)] = pair.items[1]
    return Mapping(entries, source.repeat) if entries else UNKNOWN


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


def _erf(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`math.erf` of a number (the normal CDF, as an inverse-CDF draw computes its cut points)."""
    number = as_number(args[0]) if len(args) == 1 else None
    return Const(math.erf(number.const)) if number is not None and number.is_constant else UNKNOWN


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
    copy leave the original alone. A module no other one holds (`[copy.deepcopy(layer) for _ in
    range(n)]`) stands for its copies: they hold what it held, its init so far included; one
    registered already (`self.layer`) is an instance of its own beside them."""
    if len(args) == 1 and isinstance(args[0], ModRef):
        return args[0] if args[0].node.parent is None else UNKNOWN
    return copied(args[0]) if len(args) == 1 and isinstance(args[0], (Const, Num, Seq, Mapping)) else None


def _globals(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    return Namespace() if not args and not kwargs else None


def _attribute_dict(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`SimpleNamespace(**defaults)`, `EasyDict(defaults)`, Texar's `HParams(hparams, defaults)`:
    hyperparameters read as attributes, entry by entry. A user's `hparams` that is not left at
    None (or a dict we can read) could change any entry: unknown."""
    if name in DEFAULTS_SECOND_ATTRIBUTE_DICTS:
        if len(args) != 2 or kwargs or not isinstance(args[1], Mapping):
            return UNKNOWN
        user = args[0].compared if isinstance(args[0], Opaque) else args[0]
        if isinstance(user, Mapping):
            return Mapping({**args[1].items, **user.items}, attributes=True)
        return Mapping(dict(args[1].items), attributes=True) if user == Const(None) else UNKNOWN
    if len(args) > 1 or args and not isinstance(args[0], Mapping):
        return UNKNOWN
    return Mapping({**(args[0].items if args else {}), **kwargs}, attributes=True)


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
    "filter": _filter,
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
    "erf": _erf,
    **dict.fromkeys(("re.match", "re.search", "re.fullmatch"), _regex_match),
    "functools.partial": _partial,
    "partial": _partial,
    "callable": _callable,
    "globals": _globals,
    **dict.fromkeys(("copy.copy", "copy.deepcopy"), _copy),
    **dict.fromkeys(ATTRIBUTE_DICTS | DEFAULTS_SECOND_ATTRIBUTE_DICTS, _attribute_dict),
}

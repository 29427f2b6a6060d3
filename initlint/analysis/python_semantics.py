"""Python's own semantics for the interpreter, the one door it goes through: constants and the
builtin names, bound methods, subscripts, iteration, comprehensions, dict config entries and
string methods. The operators live in `python_operators.py`, the builtins in
`python_builtins.py`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import (
    Choice,
    UNKNOWN,
    Const,
    Env,
    Mapping,
    ModRef,
    Namespace,
    Num,
    Opaque,
    Seq,
    as_number,
    truth,
)
from initlint.analysis.knowledge.conventions import LAYER_INDEX

# The interpreter evaluates operators through this module too: one door into Python.
from initlint.analysis.python_operators import binary as binary
from initlint.analysis.python_operators import boolean as boolean
from initlint.analysis.python_operators import compare as compare
from initlint.analysis.python_operators import pattern_matches as pattern_matches
from initlint.analysis.python_operators import string_value
from initlint.analysis.python_operators import unary as unary
from initlint.analysis.values import Monomial

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
        "filter",
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
        "globals",
    }
)


@dataclass(frozen=True)
class BoundMethod:
    receiver: Any
    name: str


def subscript(interp: "Interpreter", node: cst.Subscript, env: Env, ctx: "Ctx") -> Any:
    base = interp.eval(node.value, env, ctx)
    part = node.slice[0].slice if len(node.slice) == 1 else None
    if isinstance(part, cst.Slice):
        return _sliced(interp, base, part, env, ctx)
    if not isinstance(part, cst.Index):
        return UNKNOWN
    key = as_index(interp.eval(part.value, env, ctx))
    if isinstance(base, Seq):
        if base.repeat is not None:
            return base.items[0] if base.items else UNKNOWN
        if isinstance(key, Const) and isinstance(key.value, int) and -len(base.items) <= key.value < len(base.items):
            return base.items[key.value]
        return UNKNOWN
    if isinstance(base, Opaque) and base.entries is not None and isinstance(key, Const) and type(key.value) is int:
        return base.entries[key.value] if -len(base.entries) <= key.value < len(base.entries) else UNKNOWN
    if isinstance(base, Opaque) and _is_loop_index(key) and (ctx.repeat is not None or ctx.in_repeat):
        return stage_entry(base)
    if isinstance(base, Opaque) and isinstance(key, Const) and type(key.value) is int:
        # `depths[0]` of a root's per-stage list, each stage built on its own.
        return stage_entry(base)
    if isinstance(base, Namespace):
        return global_entry(interp, key)
    if isinstance(base, (Mapping, Opaque)):
        return config_entry(interp, base, key, UNKNOWN)
    if isinstance(base, ModRef):
        return _child_entry(base, key)
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


def _child_entry(base: ModRef, key: Any) -> Any:
    """`self.layers[-1]`, `blocks["0"]`: a child of a container by its name or position."""
    children = base.node.children
    if isinstance(key, Const) and str(key.value) in children:
        return ModRef(children[str(key.value)])
    if isinstance(key, Const) and isinstance(key.value, int) and key.value < 0 and children:
        return ModRef(list(children.values())[key.value]) if -len(children) <= key.value else UNKNOWN
    if not isinstance(key, Const) and len(children) == 1:
        return ModRef(next(iter(children.values())))
    return UNKNOWN


def _sliced(interp: "Interpreter", base: Any, part: cst.Slice, env: Env, ctx: "Ctx") -> Any:
    """`neurons[1:]`, `dims[:-1]`: the items of a list we know item by item, cut by constant
    bounds; a list standing for a symbolic number of items is not cut."""
    if not isinstance(base, Seq) or base.repeat is not None:
        return UNKNOWN
    bounds: list[int | None] = []
    for bound in (part.lower, part.upper, part.step):
        value = as_index(interp.eval(bound, env, ctx)) if bound is not None else Const(None)
        if not isinstance(value, Const) or not (value.value is None or type(value.value) is int):
            return UNKNOWN
        bounds.append(value.value)
    if bounds[2] == 0:
        return UNKNOWN
    return Seq(base.items[bounds[0] : bounds[1] : bounds[2]], written_as=base.written_as)


def global_entry(interp: "Interpreter", key: Any) -> Any:
    """`globals()[name]`: what the module binds to that name (a string, or a parameter by its
    string default, as a class table is read); a name the module does not bind is unknown."""
    if isinstance(key, Opaque) and key.default is not None:
        key = Const(key.default)
    if not isinstance(key, Const) or not isinstance(key.value, str):
        return UNKNOWN
    value = interp.global_value(key.value)
    return UNKNOWN if isinstance(value, Opaque) else value


def as_index(value: Any) -> Any:
    """`-1` is a number to the interpreter (a unary minus); as an index it is that integer."""
    number = as_number(value) if isinstance(value, Num) else None
    if number is not None and number.is_constant and float(number.const).is_integer():
        return Const(int(number.const))
    return value


def _is_loop_index(value: Any) -> bool:
    return isinstance(value, Num) and value.value == Monomial.atom(LAYER_INDEX)


def stage_entry(per_stage: Opaque) -> Any:
    """`depths[i]` in `for i in range(len(depths))` (or `range(config.num_stages)`, a count the
    list has an entry for each of), or in the `__init__` of a stage built per `i`: one stage's
    block count. That loop runs its body once, for
    every stage; a loop nested in it that builds `depths[i]` blocks therefore builds `sum(depths)`
    of them in all, the depth the residual stream runs through (the stages share one stream: a
    down-sampling layer between them is no residual add). Of a list of settings its default writes
    out (`[(4, 4), (8, 8)]`), the first entry stands for each."""
    if per_stage.entries is not None:
        return per_stage.entries[0]
    return Num(Monomial.atom(f"sum({per_stage.name})"))


def stages_of(per_stage: Opaque) -> Seq:
    """A list handed in that cannot be seen, walked by a loop (`for stage_depth in depths:`, or
    zipped with other per-stage settings): one pass per entry, `len(depths)` in all, its item one
    stage's entry as `depths[i]` is, so that a loop nested in it building `stage_depth` blocks
    builds `sum(depths)` of them."""
    return Seq([stage_entry(per_stage)], Monomial.atom(f"len({per_stage.name})"))


def config_entry(interp: "Interpreter", config: Mapping | Opaque, key: Any, default: Any) -> Any:
    """`cfg["n_layers"]`, `cfg.get("n_layer", 12)`: an entry of a dict config. A depth stays the
    symbol it is named by, whatever number the defaults hold: the depth factor is `1/sqrt(2 * n_layers)`,
    not a constant that happens to equal it."""
    if isinstance(key, Opaque) and key.default is not None and isinstance(config, Mapping):
        key = Const(key.default)  # `ATTENTION_CLASSES[attn_implementation]`, by the default
    if not isinstance(key, Const) and isinstance(config, Mapping):
        return _any_layer_class(interp, config)
    if not isinstance(key, Const) or not isinstance(key.value, str):
        return UNKNOWN
    if isinstance(config, Opaque):
        return Opaque(key.value)  # like `config.n_layers` on a config we cannot see
    value = config.items.get(key.value, default)
    if key.value in interp.depth_names and as_number(value) is not None:
        return Opaque(key.value)
    return value


def _any_layer_class(interp: "Interpreter", table: Mapping) -> Any:
    """`BLOCK_TYPES[kind]` by a key the analysis cannot decide, in a table of layer classes only:
    one of them, each built where the value is called (as `A if test else B` is)."""
    options: list[Any] = []
    for value in table.items.values():
        if not interp.is_layer_class(value):
            return UNKNOWN
        options += [] if value in options else [value]
    if not options:
        return UNKNOWN
    return options[0] if len(options) == 1 else Choice(tuple(options))


def extend_list(receiver: Seq, added: Any, ctx: "Ctx") -> Const:
    """`items.append(x)` (`added` a one-item list), `items.extend(more)`, `items += more`: in place.
    Appended in a loop, or extended by a comprehension (`[Block() for _ in range(n)]`), an empty
    list holds one representative, repeated as often."""
    was_empty = not receiver.items
    receiver.items.extend(added.items if isinstance(added, Seq) else [added])
    repeat = ctx.repeat if ctx.repeat is not None else added.repeat if isinstance(added, Seq) else None
    if was_empty and receiver.repeat is None:
        receiver.repeat = repeat
    return Const(None)


def characters(interp: "Interpreter", value: Any) -> Seq | None:
    """A string's characters, one item each (a config's `"dr"` by its default, as comparisons
    decide); None for anything that is not a string the interpreter can see."""
    text = string_value(interp, value)
    return None if text is None else Seq([Const(character) for character in text])


def iterate(interp: "Interpreter", value: Any) -> Seq | None:
    """What a loop walks, item by item: a list, a dict's keys, a container's layers, a string's
    characters (`for step in sequence:` over a config's `"dr"`, by its default as comparisons
    decide)."""
    if isinstance(value, Seq):
        return value
    walked = characters(interp, value)
    if walked is not None:
        return walked
    if isinstance(value, Mapping):
        return Seq([Const(key) for key in value.items])
    if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
        children = list(value.node.children.values())
        repeat = children[0].repeat if len(children) == 1 else None
        # A layer built per pass as one of several kinds is walked as any of them (`for blk in
        # self.blocks: if isinstance(blk, Attn): ...`), as an attribute holding one is read.
        return Seq([ModRef(child, child.with_alternatives()[1:]) for child in children], repeat)
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
        walked = interp.eval(clause.iter, scope, inner)
        iterable = iterate(interp, walked)
        if iterable is None and isinstance(walked, Opaque):
            # A list handed in (`[make_block(kind) for kind in config["blocks"]]`): one pass per
            # entry, as a `for` loop over it runs.
            iterable = stages_of(walked)
        if iterable is None:
            unseen = True
            return
        # A repeated sequence holds one item per kind, each standing for its share of them all.
        items = iterable.items[:4000]
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


#: The `str` methods read on a known string.
STRING_METHODS = frozenset(
    {
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
    }
)


def string_default(value: Any) -> str | None:
    """The string a root parameter or config field defaults to (`norm: str = "rmsnorm"`): its
    methods answer as the default's do."""
    compared = value.compared if isinstance(value, Opaque) else None
    return compared.value if isinstance(compared, Const) and isinstance(compared.value, str) else None


def string_default_method(receiver: Opaque, name: str, args: list[Any]) -> Any:
    """`norm_type.lower()` on a string default: the symbol still, now comparing as the default's
    result does (a factory's `key = norm_type.lower(); if key == "rmsnorm": ...`)."""
    result = string_method(string_default(receiver) or "", name, args)
    if isinstance(result, Const) and isinstance(result.value, str):
        return replace(receiver, default=result.value, compared=result)
    return result


def string_method(receiver: str, name: str, args: list[Any]) -> Any:
    values = [a.value if isinstance(a, Const) else a for a in args]
    if isinstance(values[0] if values else "", Seq):
        seq = values[0]
        if seq.repeat is None and all(isinstance(i, Const) for i in seq.items):
            values[0] = tuple(i.value for i in seq.items)
    if any(not isinstance(v, (str, int, tuple, type(None))) for v in values):
        return UNKNOWN
    try:
        if name in STRING_METHODS:
            return Const(getattr(receiver, name)(*values))
        if name in ("split", "rsplit"):
            return Seq([Const(part) for part in getattr(receiver, name)(*values)])
    except (TypeError, ValueError):
        return UNKNOWN
    return UNKNOWN

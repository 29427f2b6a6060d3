"""How names in a `forward` are bound, and what its loops walk, read from the syntax alone.

The forward reader (`residual.ForwardReader`, `forward_statements.py`) and the questions asked
of an owner's loops over its blocks share these: what each target of a `for` walks (`enumerate`,
`zip`, a list bound once to a tuple written out or to `zip(...)`, and followed when rebound on
the path read or trimmed by a layer-drop helper), how a loop target or unpacking binds the
values the reader holds, and which names a statement or a body binds. Apart from the reader so
that its statements read on their own and these small, stateless answers have one home.
"""

from __future__ import annotations

import functools

from typing import Any, Mapping, Protocol, Sequence, TypeGuard

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, Env, ModRef, Seq
from initlint.analysis.knowledge.conventions import MATRIX_PRODUCTS
from initlint.analysis.flow import CONDITIONED, MAYBE_NORMED, NORMED, Branch, Part
from initlint.analysis.model import ModuleNode
from initlint.analysis.positions import statement_parts


class PathLiterals(Protocol):
    """The reading state these follow rebindings in (`forward_statements._Flow`)."""

    #: Names the function binds once to a tuple written out (`pair = (self.layers, gains)`).
    literals: Mapping[str, cst.BaseExpression]
    #: What `literals` holds for names bound more than once, on the path read.
    rebound: dict[str, cst.BaseExpression | None]


def note_rebinding(assign: cst.Assign, flow: PathLiterals, kept: cst.BaseExpression | None) -> None:
    """Follow, on the path read, the names `literals` leaves out for being bound more than once;
    `kept` is what the value walks when it keeps the items of another name."""
    forget_literals({name for target in assign.targets for name in target_names(target.target)}, flow)
    target = assign.targets[0].target
    if len(assign.targets) == 1 and isinstance(target, cst.Name) and target.value not in flow.literals:
        flow.rebound[target.value] = kept or _literal(assign.value)


@functools.lru_cache(maxsize=256)  # asked at each call of the helper in a `forward`
def picked_parameter(helper: cst.FunctionDef) -> int | None:
    """The position of the parameter a straight-line helper hands back some of the items of on
    every path: the parameter itself, a slice of it, or the items a comprehension over it keeps
    (`[block for block, drop in zip(blocks, drops) if not drop]`). None for any other helper."""
    body = helper.body.body if isinstance(helper.body, cst.IndentedBlock) else ()
    lines = [statement for statement in body if isinstance(statement, cst.SimpleStatementLine)]
    if len(lines) != len(body):
        return None
    smalls = [small for line in lines for small in line.body]
    for position, param in enumerate(helper.params.params):
        picked = {param.name.value}
        for small in smalls:
            if isinstance(small, cst.Return):
                if small.value is not None and _picks_from(small.value, picked):
                    return position
                break
            if isinstance(small, cst.Assign):
                bound = {name for target in small.targets for name in target_names(target.target)}
                target = small.targets[0].target
                keeps = len(small.targets) == 1 and isinstance(target, cst.Name) and _picks_from(small.value, picked)
                picked = picked | bound if keeps else picked - bound
            elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                picked = picked - target_names(small.target)
    return None


def _picks_from(value: cst.BaseExpression, picked: set[str]) -> bool:
    """`value` holds only items of the lists named in `picked`: one of them, a slice of one, a
    choice between two such values, or a comprehension handing back the items of one it walks."""
    if isinstance(value, cst.Name):
        return value.value in picked
    if isinstance(value, cst.Subscript):
        sliced = all(isinstance(element.slice, cst.Slice) for element in value.slice)
        return sliced and _picks_from(value.value, picked)
    if isinstance(value, cst.IfExp):
        return _picks_from(value.body, picked) and _picks_from(value.orelse, picked)
    if isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Name) and value.for_in.inner_for_in is None:
        walked = dict(walked_by_loop(value.for_in.target, value.for_in.iter, {}))
        return any(
            isinstance(target, cst.Name)
            and target.value == value.elt.value
            and node is not None
            and _picks_from(node, picked)
            for target, node in walked.items()
        )
    return False


def forget_literals(names: set[str], flow: PathLiterals) -> None:
    for name in names - flow.literals.keys():
        flow.rebound[name] = None


def current_literals(flow: PathLiterals) -> Mapping[str, cst.BaseExpression]:
    rebound = {name: expression for name, expression in flow.rebound.items() if expression is not None}
    return {**flow.literals, **rebound} if rebound else flow.literals


def module_items(value: Any) -> list[Any] | None:
    """What a `for` over modules iterates: a container's children (one for a repeated stack)."""
    if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
        return [ModRef(child) for child in value.node.children.values()]
    if isinstance(value, Seq) and value.repeat is None and value.items:
        return list(value.items)
    return None


#: What each pass of a `for` binds: its targets, each with its value in that pass.
Passes = list[list[tuple[cst.BaseExpression, Any]]]


def loop_passes(loops: list[tuple[cst.BaseExpression, Any]], limit: int) -> tuple[Passes, bool]:
    """The passes of a `for` over lists of layers or of values, and whether they are its passes
    one by one (each item known, no repeated block standing for a stack). Several lists of one
    length are walked side by side (`zip(inputs, self.to_qkv)`: one stream's input and its own
    layer per pass), a tensor zipped beside them hands each pass a slice of what it holds
    (`zip(out.split(sizes, dim=1), self.to_out)`). Anything else walks one pass, unbound."""
    columns = [(target, items) for target, iterable in loops if (items := module_items(iterable)) is not None]
    if not columns or len({len(items) for _, items in columns}) > 1:
        return [[]], False
    count = len(columns[0][1])
    exact = count <= limit and all(_one_item(item) for _, items in columns for item in items)
    if len(columns) > 1 and not exact:
        return [[]], False
    sliced = [(target, value) for target, value in loops if _tensor(value)] if exact else []
    return [[(target, items[i]) for target, items in columns] + sliced for i in range(count)], exact


def _tensor(value: Any) -> bool:
    return value is NORMED or value is MAYBE_NORMED or isinstance(value, (Branch, Part))


def _one_item(item: Any) -> bool:
    """An item that is itself, not a block standing for a stack of repeated ones."""
    return not (isinstance(item, ModRef) and item.node.repeat is not None)


def filled_list(value: Seq) -> bool:
    """A list the `forward` builds from empty by `append` (`outs = []`), each item known."""
    return value.repeat is None and value.written_as == "list"


def pairwise(assign: cst.Assign) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
    """`a, b = x, y`: each target with its own value (one target tuple as long as the value
    tuple, nothing starred); None for any other assignment."""
    target, value = assign.targets[0].target, assign.value
    if len(assign.targets) != 1 or not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if not isinstance(value, (cst.Tuple, cst.List)) or len(target.elements) != len(value.elements):
        return None
    if any(isinstance(element, cst.StarredElement) for element in (*target.elements, *value.elements)):
        return None
    return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]


def walked_by_loop(
    target: cst.BaseExpression, iterable: cst.BaseExpression, literals: Mapping[str, cst.BaseExpression]
) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """A loop's targets paired with what each walks: `enumerate(xs)` hands out an index (which
    walks nothing) beside each item of `xs`, `zip(xs, ys)` an item of each."""
    iterable = _materialised(iterable)
    if isinstance(iterable, cst.Name) and isinstance(literals.get(iterable.value), cst.Call):
        iterable = literals[iterable.value]  # `pairs = list(zip(self.layers, routes))`, walked later
    func = iterable.func.value if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) else None
    calls = iterable.args if isinstance(iterable, cst.Call) else ()
    args = plain_arguments(calls) if func == "enumerate" else _zipped(calls, literals) if func == "zip" else None
    elements = [element.value for element in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    if func == "enumerate" and args is not None and len(args) == 1 and len(elements) == 2:
        return [(elements[0], None)] + walked_by_loop(elements[1], args[0], literals)
    if func == "zip" and args is not None and len(args) == len(elements) > 1:
        return [pair for element, arg in zip(elements, args) for pair in walked_by_loop(element, arg, literals)]
    return [(target, iterable)]


def builtin_call(node: cst.BaseExpression, name: str, env: Env) -> TypeGuard[cst.Call]:
    """`zip(...)`, `map(...)`: a call of the builtin `name`, which no name of the `forward` shadows."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == name
        and name not in env.names
    )


def plain_arguments(args: Sequence[cst.Arg]) -> list[cst.BaseExpression] | None:
    if any(arg.keyword is not None or arg.star for arg in args):
        return None
    return [arg.value for arg in args]


def _zipped(args: Sequence[cst.Arg], literals: Mapping[str, cst.BaseExpression]) -> list[cst.BaseExpression] | None:
    """What `zip` walks side by side: its arguments, or the items of a tuple spread into it
    (`zip(*pair)` with `pair = (self.layers, gains)` bound once in the function)."""
    spread = args[0].value if len(args) == 1 and args[0].star == "*" and args[0].keyword is None else None
    if isinstance(spread, cst.Name):
        literal = literals.get(spread.value)
        return [element.value for element in literal.elements] if isinstance(literal, (cst.Tuple, cst.List)) else None
    return plain_arguments(args)


def _bindings(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression | None]]:
    """Each name's bindings in a function: assignments (a value only when alone on its line),
    augmented assignments and `for` targets (no value). Bindings are statements, so the walk
    skips every expression; their order does not matter to the one reader below."""
    bindings: dict[str, list[cst.BaseExpression | None]] = {}
    for node in statement_parts(func.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                _add_binding(bindings, target.target, node.value if len(node.targets) == 1 else None)
        elif isinstance(node, (cst.AugAssign, cst.For)):
            _add_binding(bindings, node.target, None)
    return bindings


def _add_binding(
    bindings: dict[str, list[cst.BaseExpression | None]], target: cst.BaseExpression, value: cst.BaseExpression | None
) -> None:
    if isinstance(target, cst.Name):
        bindings.setdefault(target.value, []).append(value)


@functools.lru_cache(maxsize=512)  # a walk of a whole method; asked again per stack and root
def tuple_literals(func: cst.FunctionDef) -> Mapping[str, cst.BaseExpression]:
    """A name bound once, to a tuple or list written out without a starred item, stands for
    those items wherever it is spread; one bound once to `zip(...)` or `enumerate(...)` (listed
    or not) walks as that call does."""
    literals: dict[str, cst.BaseExpression] = {}
    for name, values in _bindings(func).items():
        # Rebindings that only re-index each item (`walked = tuple(xs[a:b] for xs in walked)`)
        # keep what the one written-out binding walks.
        kept = [value for value in values if value is None or not _reindexes_items(value, name)]
        value = _literal(kept[0]) if len(kept) == 1 and kept[0] is not None else None
        if value is not None:
            literals[name] = value
    return literals


def one_slice(node: cst.BaseExpression) -> bool:
    """`xs[k:]`, `xs[:n]`: one slice, as of a list (a tensor view takes several axes or an index)."""
    return isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)


@functools.lru_cache(maxsize=512)
def sliced_names(func: cst.FunctionDef) -> frozenset[str]:
    """Names the function binds to one slice of something (`rest = self.layers[k:]`, `done, rest =
    layers[:k], layers[k:]`): a loop over one of them walks part of a list."""
    names: set[str] = set()
    for node in statement_parts(func.body):
        if isinstance(node, cst.Assign):
            pairs = pairwise(node) or [(target.target, node.value) for target in node.targets]
            names.update(target.value for target, value in pairs if isinstance(target, cst.Name) and one_slice(value))
    return frozenset(names)


def _reindexes_items(expression: cst.BaseExpression, name: str) -> bool:
    """`tuple(tuple(xs[i] for i in order) for xs in name)` or `tuple(xs[a:b] for xs in name)`:
    each item re-read through indices of its own, so the name still walks beside the same lists
    (an execution order that reorders or trims them, not other modules)."""
    outer = _materialised(expression)
    if not isinstance(outer, (cst.GeneratorExp, cst.ListComp)) or not _plain_loop(outer.for_in):
        return False
    walked, item = outer.for_in.iter, outer.for_in.target
    if not (isinstance(walked, cst.Name) and walked.value == name and isinstance(item, cst.Name)):
        return False
    inner = _materialised(outer.elt)
    if isinstance(inner, (cst.GeneratorExp, cst.ListComp)) and _plain_loop(inner.for_in):
        inner = inner.elt
    return isinstance(inner, cst.Subscript) and isinstance(inner.value, cst.Name) and inner.value.value == item.value


def _plain_loop(loop: cst.CompFor) -> bool:
    return not loop.ifs and loop.inner_for_in is None and loop.asynchronous is None


def _literal(expression: cst.BaseExpression) -> cst.BaseExpression | None:
    """A tuple or list written out without a starred item, or a `zip(...)` or `enumerate(...)`
    (listed or not): what a name bound to it stands for where it is walked or spread."""
    value = _materialised(expression)
    if isinstance(value, (cst.Tuple, cst.List)) and not any(
        isinstance(element, cst.StarredElement) for element in value.elements
    ):
        return value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("zip", "enumerate"):
        return value
    return None


def _materialised(expression: cst.BaseExpression) -> cst.BaseExpression:
    """`list(zip(xs, ys))` walks as `zip(xs, ys)` does: the list only keeps what it yields."""
    while (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Name)
        and expression.func.value in ("list", "tuple")
        and len(expression.args) == 1
        and not expression.args[0].star
        and expression.args[0].keyword is None
    ):
        expression = expression.args[0].value
    return expression


def bind(target: cst.BaseExpression, value: Any, env: Env) -> None:
    """A loop target: `for attn, ff in self.layers` unpacks the pair into its two children."""
    if isinstance(target, cst.Name):
        env.names[target.value] = value
        return
    if not isinstance(target, (cst.Tuple, cst.List)):
        return
    parts: list[Any] = []
    if isinstance(value, ModRef):
        parts = _entries(value.node)
    elif isinstance(value, Seq):
        parts = list(value.items)
    for i, element in enumerate(target.elements):
        bind(element.value, parts[i] if len(parts) == len(target.elements) else UNKNOWN, env)


def aligned(walked: Any, block: ModuleNode) -> Any:
    """What a loop walks beside a block's container, at the block's place: the norm of
    `zip(self.norms, self.layers)` when the norms are built as the layers are (one per layer, or
    one per kind of layer), the letter of `zip(kinds, self.layers)` when the layers were built
    from those letters in turn. Anything else is handed in with each block, computed elsewhere."""
    assert block.parent is not None
    layers = list(block.parent.children.values())
    counts = [layer.repeat for layer in layers]
    entries: list[Any] | None = None
    if (
        isinstance(walked, ModRef)
        and walked.node.kind in ("container", "sequential")
        and [entry.repeat for entry in walked.node.children.values()] == counts
    ):
        entries = _entries(walked.node)
    elif isinstance(walked, Seq) and len(set(counts)) == 1 and walked.repeat == counts[0]:
        entries = list(walked.items)
    if entries is None or len(entries) != len(layers):
        return CONDITIONED
    return entries[layers.index(block)]


def _entries(container: ModuleNode) -> list[Any]:
    """What iterating a container yields: its children, and None in the slots of a list built
    with None entries (`ModuleList([norm, None])`)."""
    children = container.children
    slots = container.slots
    if slots is None or not set(children) <= {str(i) for i in range(slots)}:
        return [ModRef(child) for child in children.values()]
    return [ModRef(children[str(i)]) if str(i) in children else Const(None) for i in range(slots)]


class _Assigned(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)


def target_names(target: cst.BaseExpression) -> set[str]:
    """The names a loop target binds: `for (attn, ff), gain in ...` binds three."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in target_names(element.value)}
    return set()


def bound_names(small: cst.BaseSmallStatement) -> set[str]:
    """The names an assignment binds (`x, _ = blk(x)` binds two)."""
    if isinstance(small, cst.Assign):
        return {name for target in small.targets for name in target_names(target.target)}
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return target_names(small.target)
    return set()


def holds_no_tensor(value: cst.BaseExpression) -> bool:
    """`None` or a number written out (`aux_loss = 0.`): a name bound so before a block loop and
    reassigned in it carries an optional state or sums a side value over the blocks (an
    auxiliary loss), never the stream, a tensor that exists before the first block."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float)) or isinstance(value, cst.Name) and value.value == "None"


def assigned_names(body: cst.BaseSuite) -> set[str]:
    visitor = _Assigned()
    body.visit(visitor)
    return visitor.names


#: Methods that change the object they are called on (in-place tensor ops end in `_`).
_MUTATING = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "pop", "remove", "clear"})


def changed_in_place(func: cst.BaseExpression) -> str | None:
    """The name a method call changes in place (`outs.append(y)`, `x.add_(y)`)."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    method = func.attr.value
    return func.value.value if method in _MUTATING or method.endswith("_") else None


def stored_into(small: cst.BaseSmallStatement) -> set[str]:
    """The names whose parts an assignment stores into (`h[i] = y`, `cache.last = y`)."""
    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else []
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        targets = [small.target]
    return {
        target.value.value
        for target in targets
        if isinstance(target, (cst.Subscript, cst.Attribute)) and isinstance(target.value, cst.Name)
    }


def range_count(loop: cst.For) -> cst.BaseExpression | None:
    """`n` of `for _ in range(n)`."""
    walked = loop.iter
    if not (isinstance(walked, cst.Call) and isinstance(walked.func, cst.Name) and walked.func.value == "range"):
        return None
    if len(walked.args) != 1 or walked.args[0].keyword is not None or walked.args[0].star:
        return None
    return walked.args[0].value


def indexed_by(body: cst.CSTNode, counter: str) -> list[cst.BaseExpression]:
    """What `body` indexes by the loop counter `counter` alone (`self.layers` of `self.layers[i]`)."""
    found: list[cst.BaseExpression] = []

    class _Indexed(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == counter:
                found.append(node.value)

    body.visit(_Indexed())
    return found


def mentions(body: cst.CSTNode, names: set[str]) -> bool:
    """Whether any of `names` is read in `body` (a loop's counter, in the loop it counts)."""
    found = False

    class _Mentions(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> bool:
            nonlocal found
            found = found or node.value in names
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # (`x.r` reads `x`, not a name `r`)
            return False

    body.visit(_Mentions())
    return found


#: Per flag an undecided `if` tested: what the names that `if` rebound held past it, and what
#: they held with the flag true and with it false.
FlagArms = dict[str, tuple[dict[str, Any], dict[bool, dict[str, Any]]]]


def state_updated(assign: cst.Assign) -> str | None:
    """The name an assignment rebinds to a product of its own value with something else (`h =
    a_t * h + b_t`, `h = torch.matmul(A_t, h.view(...)) + b_t`): in a loop, the update of a
    recurrence's state, where the name carries it from pass to pass. None for any other."""
    if len(assign.targets) != 1 or not isinstance(target := assign.targets[0].target, cst.Name):
        return None
    name = {target.value}
    found = False

    class _Products(cst.CSTVisitor):
        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            nonlocal found
            if isinstance(node.operator, (cst.Multiply, cst.MatrixMultiply)):
                found = found or mentions(node.left, name) != mentions(node.right, name)

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            func = node.func.attr if isinstance(node.func, cst.Attribute) else node.func
            if isinstance(func, cst.Name) and func.value in MATRIX_PRODUCTS | {"mul"}:
                read = {mentions(arg.value, name) for arg in node.args}
                found = found or read == {True, False}

    assign.value.visit(_Products())
    return target.value if found else None


def flag_tested(test: cst.BaseExpression | None) -> tuple[str, bool] | None:
    """The flag an `if` tests and its value in the body: `if skip:` is (skip, True), `if not
    self.pre_norm:` (self.pre_norm, False). None for any other test."""
    value = True
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, value = test.expression, not value
    parts: list[str] = []
    while isinstance(test, cst.Attribute):
        parts.append(test.attr.value)
        test = test.value
    return (".".join([test.value, *reversed(parts)]), value) if isinstance(test, cst.Name) else None


def remember_arms(
    arms: FlagArms, tested: tuple[str, bool] | None, body: dict[str, Any], rest: dict[str, Any], joined: dict[str, Any]
) -> None:
    """After an undecided `if` on a flag: what each name it rebound holds on either path."""
    if tested is None:
        return
    flag, value = tested
    changed = {name: joined[name] for name in joined if body.get(name, UNKNOWN) is not rest.get(name, UNKNOWN)}
    held = {
        value: {name: body.get(name, UNKNOWN) for name in changed},
        not value: {n: rest.get(n, UNKNOWN) for n in changed},
    }
    arms[flag] = (changed, held)


def follow_flag(arms: FlagArms, tested: tuple[str, bool] | None, in_body: bool, env: Env) -> None:
    """An arm of a later `if` on the same flag (`if not skip: x = norm(x)` ... `if skip: return
    x`) runs on the path where the flag has its value: the names the first `if` rebound, and
    nothing since, hold what that path left in them."""
    if tested is None or tested[0] not in arms:
        return
    joined, held = arms[tested[0]]
    path = held[tested[1] if in_body else not tested[1]]
    for name, past in joined.items():
        if env.names.get(name) is past:
            env.names[name] = path[name]

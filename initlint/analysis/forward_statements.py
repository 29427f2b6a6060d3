"""Reading a `forward`'s statements for the residual writers (`residual.ForwardReader`).

A mixin of the forward reader, apart so that how the reader walks a function body reads on its
own: assignments and unpacking, undecided `if`s (each arm from the state before it, then
joined), `for` loops over a block container or zipped beside it, imports inside `forward`. It
also owns the reading state of one `forward` (`_Flow`) and the limits of the reading.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, Env, FuncRef, ModRef, Seq, truth
from initlint.analysis.interp import Ctx
from initlint.errors import StepBudgetExceeded
from initlint.analysis.flow import CONDITIONED, MAYBE_NORMED, STREAM, Branch, Part, StreamRuns, join, merge, stored_key
from initlint.analysis.knowledge.conventions import SPLITTING_METHODS
from initlint.analysis.model import ModuleNode, ResidualAdd
from initlint.analysis.positions import statement_parts

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Interpreter

MAX_FORWARD_DEPTH = 6
#: Children of a container a `for` in `forward` is read for, one after the other.
MAX_UNROLL = 16


@dataclass
class _Flow:
    node: ModuleNode
    adds: list[ResidualAdd] = field(default_factory=list)
    returns: list[Any] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    #: How many modules deep the reading is (`forward` of a child of a child...).
    depth: int = 0
    #: How many undecided `if` arms enclose the statement being read.
    undecided: int = 0
    #: The block the adds belong to, when it is not `node` itself: a classless pair
    #: (`ModuleList([attn, ff])`) whose adds are written in the loop of its owner's `forward`.
    block: ModuleNode | None = None
    #: Adds count only inside the loop over that block's container.
    recording: bool = True
    #: The module whose method is read with the caller's values: its helpers run too.
    inlined: ModuleNode | None = None
    #: Names the function binds once to a tuple written out (`pair = (self.layers, gains)`).
    literals: Mapping[str, cst.BaseExpression] = field(default_factory=dict)
    #: A `return` hands back several values (`return normed, gate`).
    several: bool = False
    #: Names bound to a part of the split stream (`x1, x2 = x.chunk(2, dim=-1)`).
    shares: set[str] = field(default_factory=set)
    #: What `literals` holds for names bound more than once, on the path read: `pairs =
    #: list(zip(...))` rebound only under a test that does not pass (layer drop while training).
    rebound: dict[str, cst.BaseExpression | None] = field(default_factory=dict)
    #: The block containers each name's value runs through (a root's stream handed from list to list).
    runs: StreamRuns = field(default_factory=StreamRuns)
    #: Per name, the last `masked_scatter` into it: the mask, what the masked positions now
    #: hold, and the value the name was bound to by that write.
    masked: dict[str, tuple[cst.BaseExpression, Any, Any]] = field(default_factory=dict)
    #: A value computed from something other than the stream was added to it (`x +
    #: self.table(coords)`): a module that does only that (a position bias) hands the stream on.
    offset: bool = False
    #: Each item of every tuple the function returns written out (`return residual, normed`).
    returned_items: list[list[Any]] = field(default_factory=list)
    #: Calls of a residual wrapper that hands back a tuple: what each item holds, by id of the
    #: call, for a statement that unpacks it (`resid, h = self.norm_attn_norm(x)`).
    unpacked: dict[int, Seq] = field(default_factory=dict)


#: Annotations of a `forward` parameter that cannot hold a tensor.
_SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def _from_stream(params: Sequence[cst.Param]) -> list[str]:
    """The names of `forward`'s inputs from the one the stream comes in: a block handed its
    layer index first (`forward(self, layer_idx: int, x)`) takes the stream after it. Without
    annotations the stream is the first input, as `nn.Module.__call__(x)` passes it."""
    names = [param.name.value for param in params]
    for position, param in enumerate(params):
        annotation = param.annotation.annotation if param.annotation is not None else None
        if not (isinstance(annotation, cst.Name) and annotation.value in _SCALAR_ANNOTATIONS):
            return names[position:]
    return names


class _Returned(Exception):
    """A `return` on the path being read: the rest of the function does not run."""


class ForwardStatements:
    """Needs the reader's expressions and adds (`residual.ForwardReader`)."""

    interp: Interpreter

    if TYPE_CHECKING:  # declared only: a stub here would hide the reader's own method

        def walk_block(self, stmts: Sequence[cst.CSTNode], env: Env, state: _Flow) -> None: ...

        def _eval(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Any: ...

        def _value(self, node: cst.BaseExpression, env: Env) -> Any: ...

        def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any: ...

        def _scale(
            self,
            value: Any,
            other: Any,
            other_node: cst.BaseExpression,
            operator: cst.CSTNode,
            env: Env,
            whole: cst.CSTNode,
        ) -> Any: ...

    # ---------------------------------------------------------------- reading
    def _read(
        self, node: ModuleNode, depth: int, block: ModuleNode | None = None, handed: Mapping[str, Any] | None = None
    ) -> _Flow | None:
        """Read `node`'s `forward` from its input, the stream; `handed` are the callables its
        caller passes to the other parameters by name (a branch handed to a residual wrapper)."""
        found = self.interp.index.find_method(node.cls, "forward") if node.cls is not None else None
        if found is None:
            return None
        _, func = found
        flow = _Flow(node, depth=depth, block=block, recording=block is None, literals=_tuple_literals(func))
        env = Env()
        params = [p.name.value for p in func.params.params]
        star = func.params.star_arg
        given = list(func.params.params[1:]) or ([] if isinstance(star, cst.Param) else list(func.params.kwonly_params))
        names = [p.name.value for p in given]
        if len(params) == 1 and isinstance(star, cst.Param):
            # `forward(self, *args, **kwargs)` handing everything on: the stream comes first.
            env.names[star.name.value] = Seq([STREAM])
        elif not params or not given:
            return None  # (inputs may be keyword-only: `forward(self, *, x, mask)`)
        env.names[params[0]] = ModRef(node)
        inputs = _from_stream(given)
        for name in names[: len(names) - len(inputs)]:
            env.names[name] = UNKNOWN
        if inputs:
            env.names[inputs[0]] = STREAM
        for name in inputs[1:]:
            # Computed by the caller, not from this block's stream: adaLN-zero's `gate_msa`, handed
            # in by the parent, gates a branch as one computed here from `c` does.
            env.names[name] = CONDITIONED
        env.names.update({name: value for name, value in (handed or {}).items() if name in names[1:]})
        try:
            self.walk_body(func.body.body, env, flow)
        except StepBudgetExceeded:
            raise
        except RecursionError:
            return None
        return flow

    def _read_owner_loop(self, block: ModuleNode) -> _Flow | None:
        """A block without a class of its own (a pair `ModuleList([attn, ff])`): its adds are in
        the loop of its container's owner's `forward`."""
        container = block.parent
        owner = container.parent if container is not None else None
        if owner is None or owner.cls is None:
            return None
        return self._read(owner, depth=0, block=block)

    def tick(self) -> None:
        self.interp.tick()

    def walk_body(self, stmts: Sequence[cst.CSTNode], env: Env, flow: _Flow) -> bool:
        """Read statements up to a `return` on the path read: what follows it does not run.
        True when they returned."""
        try:
            self.walk_block(stmts, env, flow)
        except _Returned:
            return True
        return False

    def on_small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow) -> None:
        flow.statement = small
        flow.runs.start_statement()
        self._small(small, env, flow, flow.depth)
        flow.runs.bound(_bound_names(small))

    def on_if(self, stmt: cst.If, env: Env, flow: _Flow) -> None:
        decided = truth(self._value(stmt.test, env))
        if decided is not None and self._tests_optional_module(stmt.test, env):
            decided = None  # `if self.adapter is not None:` where __init__ may have left it None
        orelse = stmt.orelse
        else_body = [orelse] if isinstance(orelse, cst.If) else orelse.body.body if isinstance(orelse, cst.Else) else []
        if decided is None:
            self._undecided_if(stmt.body.body, else_body, env, flow)
        else:
            self.walk_block(stmt.body.body if decided else else_body, env, flow)

    def _tests_optional_module(self, test: cst.BaseExpression, env: Env) -> bool:
        """`module is None` (or `is not None`) on a module `__init__` built under a test it left
        undecided: the model a user builds may hold None there."""
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return False
        target = test.comparisons[0]
        if not isinstance(target.operator, (cst.Is, cst.IsNot)):
            return False
        if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
            return False
        value = self._value(test.left, env)
        return isinstance(value, ModRef) and value.node.optional

    def on_for(self, stmt: cst.For, env: Env, flow: _Flow) -> None:
        # `for i, ((attn, ff), p) in enumerate(zip(self.layers, drops))`: each target with what it walks.
        loops = [
            (target, None if node is None else self._eval(node, env, flow, flow.depth))
            for target, node in walked_by_loop(stmt.target, stmt.iter, _current_literals(flow))
        ]
        _forget_literals(_target_names(stmt.target), flow)
        for target, iterable in loops:
            # What is zipped beside the layers is handed in with each (LayerScale gains in a
            # ParameterList): computed elsewhere, like an extra argument of a block's `forward`.
            _bind(target, CONDITIONED if len(loops) > 1 and iterable is not None else UNKNOWN, env)
        for target, iterable in loops:
            if flow.block is not None and isinstance(iterable, ModRef) and flow.block.parent is iterable.node:
                for beside, walked in loops:
                    if beside is not target:
                        _bind(beside, _aligned(walked, flow.block), env)
                self._block_loop(stmt, target, env, flow)
                return
        modules = [(target, items) for target, iterable in loops if (items := _module_items(iterable)) is not None]
        walked, items = modules[0] if len(modules) == 1 else (None, [UNKNOWN])
        for item in items[:MAX_UNROLL]:
            if walked is not None:
                _bind(walked, item, env)
            self.walk_block(stmt.body.body, env, flow)

    def _block_loop(self, stmt: cst.For, target: cst.BaseExpression, env: Env, flow: _Flow) -> None:
        """`for attn, ff in self.layers: x = attn(x) + x`: the loop body is the block's forward,
        and what it carries from one iteration to the next is the stream."""
        assert flow.block is not None
        _bind(target, ModRef(flow.block), env)
        # The loop's own names are bound afresh each iteration (`block = cast(Dict, block)`):
        # only the others carry the stream from one block to the next.
        for name in _assigned_names(stmt.body) - _target_names(stmt.target):
            if name in env.names:
                env.names[name] = STREAM
        flow.recording = True
        try:
            self.walk_block(stmt.body.body, env, flow)
        finally:
            flow.recording = False

    def _undecided_if(
        self, body: Sequence[cst.CSTNode], else_body: Sequence[cst.CSTNode], env: Env, flow: _Flow
    ) -> None:
        """Read each arm from the state before the `if`, then join what the names hold."""
        before, first_add = dict(env.names), len(flow.adds)
        rebound = dict(flow.rebound)
        flow.undecided += 1
        body_returns = self.walk_body(body, env, flow)
        after_body, rebound_in_body = env.names, flow.rebound
        env.names, flow.rebound = dict(before), dict(rebound)
        else_returns = self.walk_body(else_body, env, flow)
        flow.undecided -= 1
        # A name rebound on one path only holds either value past the `if`.
        flow.rebound = {
            name: expression if rebound_in_body.get(name, expression) is expression else None
            for name, expression in {**rebound_in_body, **flow.rebound}.items()
        }
        if body_returns or else_returns:
            # Past the `if` only the arm that did not return runs on.
            if body_returns and else_returns:
                raise _Returned()
            env.names = env.names if body_returns else after_body
            return
        names = after_body.keys() | env.names.keys()
        joined = {name: join(after_body.get(name, UNKNOWN), env.names.get(name, UNKNOWN)) for name in names}
        if any(
            joined[n] is MAYBE_NORMED and after_body.get(n) is not MAYBE_NORMED and env.names.get(n) is not MAYBE_NORMED
            for n in names
        ):
            # One arm renormalises the stream, the other does not (`if self.pre_norm: ... else: ...`):
            # the norm placement is a flag we cannot decide, so the adds in either arm are too.
            for add in flow.adds[first_add:]:
                add.prenorm = None
        env.names = joined

    def _small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow, depth: int) -> None:
        pairs = _pairwise(small) if isinstance(small, cst.Assign) else None
        if pairs is not None:
            # `attn, ff = self.attn, self.ff`: each name its own value.
            values = [self._eval(node, env, flow, depth) for _, node in pairs]
            for (element, _), element_value in zip(pairs, values):
                self._assign(element, element_value, env)
        elif isinstance(small, cst.Assign):
            value = self._eval(small.value, env, flow, depth)
            if len(small.targets) == 1 and isinstance(small.targets[0].target, (cst.Tuple, cst.List)):
                value = flow.unpacked.get(id(small.value), value)
            _note_rebinding(small, flow, self._kept_items(small.value, flow))
            for target in small.targets:
                if value is STREAM and _splits(small.value) and isinstance(target.target, (cst.Tuple, cst.List)):
                    _bind_shares(target.target, env, flow)
                else:
                    self._assign(target.target, value, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, self._eval(small.value, env, flow, depth), env)
        elif isinstance(small, cst.AugAssign):
            _forget_literals(_target_names(small.target), flow)
            current = self._eval(small.target, env, flow, depth)
            value = self._eval(small.value, env, flow, depth)
            if isinstance(small.operator, cst.AddAssign):
                self._assign(small.target, self._add(current, value, small, flow), env)
            else:
                self._assign(small.target, self._scale(current, value, small.value, small.operator, env, small), env)
        elif isinstance(small, cst.Return):
            written = small.value
            flow.several = flow.several or isinstance(written, (cst.Tuple, cst.List))
            if isinstance(written, (cst.Tuple, cst.List)) and written.elements:
                items = [self._eval(element.value, env, flow, depth) for element in written.elements]
                starred = any(isinstance(element, cst.StarredElement) for element in written.elements)
                flow.returned_items.append([] if starred else items)
                flow.returns.append(items[0])
            elif written is not None:
                flow.returns.append(self._eval(written, env, flow, depth))
            raise _Returned()
        elif isinstance(small, cst.Expr):
            self._eval(small.value, env, flow, depth)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self._bind_imported_functions(small, env)

    def _kept_items(self, value: cst.BaseExpression, flow: _Flow) -> cst.BaseExpression | None:
        """What a list rebound to a helper's pick of its own items walks (`pairs =
        layer_drop(pairs, p)`): the items it was bound to, as far as the loops over it are
        concerned. None where the value is no such call or the list's items are not known."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return None
        name = value.func.value
        helper = self.interp.index.functions.get(name) or _plain_function(self._value(value.func, Env()))
        position = _picked_parameter(helper) if helper is not None else None
        arguments = _plain_arguments(value.args)
        if position is None or arguments is None or len(arguments) <= position:
            return None
        picked = arguments[position]
        return _current_literals(flow).get(picked.value) if isinstance(picked, cst.Name) else None

    def _bind_imported_functions(self, small: cst.Import | cst.ImportFrom, env: Env) -> None:
        """`from .calls import call_layer` inside `forward`: the names it binds to functions of
        the project, which then run with their arguments as the file's own helpers do."""
        imported = Env()
        self.interp.exec_small(small, imported, Ctx(certain=False))
        for name in imported.names:
            value = self.interp.eval(cst.Name(name), imported, Ctx(certain=False))
            if _plain_function(value) is not None:
                env.names[name] = value

    def _assign(self, target: cst.BaseExpression, value: Any, env: Env) -> None:
        if isinstance(target, cst.Name):
            env.names[target.value] = value
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            # `self.pos_emb = self.table(coords)`, read back later in the same `forward`.
            env.names[stored_key(target.value.value, target.attr.value)] = value
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and isinstance(value, Branch):
            # `out[mask] = expert(x[mask])`: the tensor now holds that content too.
            name = target.value.value
            env.names[name] = merge([env.names.get(name, UNKNOWN), value])
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, ModRef) and value.node.kind in _LISTS:
            _bind(target, value, env)  # `norm, mlp = layer`: a container unpacks into its children
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, Seq) and value.repeat is None:
            _bind(target, value, env)  # `normed, stream = fused_norm(...)`: the pair it hands back
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                # `shift, scale, gate = self.modulation(c).chunk(3)`: every part is conditioned.
                # `norm, gate_msa, ... = self.attn_norm(x, emb=t)`: what a layer hands out beside
                # its output is computed by that layer, so a branch it multiplies is gated.
                self._assign(
                    element.value,
                    value if i == 0 or value is CONDITIONED else Part(value) if isinstance(value, Branch) else UNKNOWN,
                    env,
                )


def _note_rebinding(assign: cst.Assign, flow: _Flow, kept: cst.BaseExpression | None) -> None:
    """Follow, on the path read, the names `literals` leaves out for being bound more than once;
    `kept` is what the value walks when it keeps the items of another name."""
    _forget_literals({name for target in assign.targets for name in _target_names(target.target)}, flow)
    target = assign.targets[0].target
    if len(assign.targets) == 1 and isinstance(target, cst.Name) and target.value not in flow.literals:
        flow.rebound[target.value] = kept or _literal(assign.value)


@functools.lru_cache(maxsize=256)  # asked at each call of the helper in a `forward`
def _picked_parameter(helper: cst.FunctionDef) -> int | None:
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
                bound = {name for target in small.targets for name in _target_names(target.target)}
                target = small.targets[0].target
                keeps = len(small.targets) == 1 and isinstance(target, cst.Name) and _picks_from(small.value, picked)
                picked = picked | bound if keeps else picked - bound
            elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                picked = picked - _target_names(small.target)
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


def _forget_literals(names: set[str], flow: _Flow) -> None:
    for name in names - flow.literals.keys():
        flow.rebound[name] = None


def _current_literals(flow: _Flow) -> Mapping[str, cst.BaseExpression]:
    rebound = {name: expression for name, expression in flow.rebound.items() if expression is not None}
    return {**flow.literals, **rebound} if rebound else flow.literals


def _splits(node: cst.BaseExpression) -> bool:
    """`x.chunk(2, dim=-1)`, `torch.split(x, d, dim=-1)`: the tensor cut into parts."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in SPLITTING_METHODS
    )


def _bind_shares(target: cst.Tuple | cst.List, env: Env, flow: _Flow) -> None:
    """`x1, x2 = x.chunk(2, dim=-1)` on the stream: each part is the stream of its share (a
    reversible block adds a branch of one half into the other)."""
    for element in target.elements:
        if isinstance(element.value, cst.Name):
            env.names[element.value.value] = STREAM
            flow.shares.add(element.value.value)


def _plain_function(value: Any) -> cst.FunctionDef | None:
    """A module-level function a name stands for (not a method, a closure or a partial)."""
    if isinstance(value, FuncRef) and value.owner is None and value.closure is None and not value.partial_args:
        return value.func
    return None


def _module_items(value: Any) -> list[Any] | None:
    """What a `for` over modules iterates: a container's children (one for a repeated stack)."""
    if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
        return [ModRef(child) for child in value.node.children.values()]
    if isinstance(value, Seq) and value.repeat is None and value.items:
        return list(value.items)
    return None


_LISTS = ("container", "sequential")


def _pairwise(assign: cst.Assign) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
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
    args = _plain_arguments(calls) if func == "enumerate" else _zipped(calls, literals) if func == "zip" else None
    elements = [element.value for element in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    if func == "enumerate" and args is not None and len(args) == 1 and len(elements) == 2:
        return [(elements[0], None)] + walked_by_loop(elements[1], args[0], literals)
    if func == "zip" and args is not None and len(args) == len(elements) > 1:
        return [pair for element, arg in zip(elements, args) for pair in walked_by_loop(element, arg, literals)]
    return [(target, iterable)]


def _plain_arguments(args: Sequence[cst.Arg]) -> list[cst.BaseExpression] | None:
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
    return _plain_arguments(args)


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
def _tuple_literals(func: cst.FunctionDef) -> Mapping[str, cst.BaseExpression]:
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


def _bind(target: cst.BaseExpression, value: Any, env: Env) -> None:
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
        _bind(element.value, parts[i] if len(parts) == len(target.elements) else UNKNOWN, env)


def _aligned(walked: Any, block: ModuleNode) -> Any:
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


def _target_names(target: cst.BaseExpression) -> set[str]:
    """The names a loop target binds: `for (attn, ff), gain in ...` binds three."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _target_names(element.value)}
    return set()


def _bound_names(small: cst.BaseSmallStatement) -> set[str]:
    """The names an assignment binds (`x, _ = blk(x)` binds two)."""
    if isinstance(small, cst.Assign):
        return {name for target in small.targets for name in _target_names(target.target)}
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return _target_names(small.target)
    return set()


def _assigned_names(body: cst.BaseSuite) -> set[str]:
    visitor = _Assigned()
    body.visit(visitor)
    return visitor.names

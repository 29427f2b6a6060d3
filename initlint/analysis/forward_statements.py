"""Reading a `forward`'s statements for the residual writers (`residual.ForwardReader`).

A mixin of the forward reader, apart so that how the reader walks a function body reads on its
own: assignments and unpacking, undecided `if`s (each arm from the state before it, then
joined), `for` loops over a block container or zipped beside it (recording, in `BlockLoops`,
what each hands from block to block), imports inside `forward`. It also owns the reading state
of one `forward` (`_Flow`) and the limits of the reading; what loops walk and how targets bind,
read from the syntax alone, are in `forward_bindings.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Env, FuncRef, Lambda, ModRef, Opaque, Seq, truth
from initlint.analysis.interp import Ctx
from initlint.errors import StepBudgetExceeded
from initlint.analysis.flow import (
    CONDITIONED,
    MAYBE_NORMED,
    SECOND,
    STREAM,
    BlockLoops,
    Branch,
    Loop,
    Part,
    StreamRuns,
    computed_by_key,
    conditioned,
    join,
    merge,
    stored_key,
)
from initlint.analysis.forward_bindings import (
    changed_in_place,
    aligned,
    builtin_call,
    assigned_names,
    bind,
    bound_names,
    current_literals,
    FlagArms,
    filled_list,
    flag_tested,
    follow_flag,
    forget_literals,
    holds_no_tensor,
    indexed_by,
    loop_passes,
    mentions,
    note_rebinding,
    pairwise,
    one_slice,
    remember_arms,
    picked_parameter,
    plain_arguments,
    range_count,
    sliced_names,
    state_updated,
    stored_into,
    target_names,
    tuple_literals,
    walked_by_loop,
)
from initlint.analysis.knowledge.conventions import SPLITTING_METHODS
from initlint.analysis.forward_inputs import carried_streams, from_stream, keyword_streams
from initlint.analysis.model import ModuleNode, ResidualAdd
from initlint.analysis.values import Monomial

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
    #: The symbols those `if`s test, where a test is one (`if self.prenorm:`, a root's parameter).
    flags: tuple[str, ...] = ()
    #: The arm of each of those `if`s the statement is in (ResidualAdd.arms).
    arms: tuple[tuple[int, int], ...] = ()
    #: The block the adds belong to, when it is not `node` itself: a classless pair
    #: (`ModuleList([attn, ff])`) whose adds are written in the loop of its owner's `forward`.
    block: ModuleNode | None = None
    #: Adds count only inside the loop over that block's container.
    recording: bool = True
    #: The counter of that loop when it walks the container by index (`self.layers[i]`).
    counter: str | None = None
    #: Inputs after the stream that the block adds into and hands back: a second stream (a pair
    #: representation beside the atom one), read as computed elsewhere but for the adds into it.
    carried: frozenset[str] = frozenset()
    #: Keyword-only inputs that are each a stream of its own (`text_tokens`, `image_tokens`).
    named: frozenset[str] = frozenset()
    #: The adds into each of those, and the one the statement being read adds into.
    carried_adds: dict[str, list[ResidualAdd]] = field(default_factory=dict)
    added_into: str | None = None
    #: The module whose method is read with the caller's values: its helpers run too.
    inlined: ModuleNode | None = None
    #: Names the function binds once to a tuple written out (`pair = (self.layers, gains)`).
    literals: Mapping[str, cst.BaseExpression] = field(default_factory=dict)
    #: Names it binds to a slice (`rest = self.layers[k:]`), and the loop over a slice of the
    #: block's container being read (`ResidualAdd.part`).
    sliced: frozenset[str] = frozenset()
    part: int = 0
    #: A `return` hands back several values (`return normed, gate`).
    several: bool = False
    #: Names bound to a part of the split stream (`x1, x2 = x.chunk(2, dim=-1)`).
    shares: set[str] = field(default_factory=set)
    #: What `literals` holds for names bound more than once, on the path read: `pairs =
    #: list(zip(...))` rebound only under a test that does not pass (layer drop while training).
    rebound: dict[str, cst.BaseExpression | None] = field(default_factory=dict)
    #: The block containers each name's value runs through (a root's stream handed from list to list).
    runs: StreamRuns = field(default_factory=StreamRuns)
    #: Names last bound to `None` or a number on the path read (`prev_scores = None`, `aux_loss =
    #: 0.` before a block loop).
    unset: set[str] = field(default_factory=set)
    #: What the loops over a container's blocks hand from one block to the next.
    loops: BlockLoops = field(default_factory=BlockLoops)
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
    #: Each item of a tuple written out, by id of the tuple (a call handed one input per stream).
    written: dict[int, Seq] = field(default_factory=dict)
    #: What the names carrying the stream hold at the end of the loop over `block`'s container:
    #: what one block hands the next (`x = self.norm(x)` last in the body: post-norm in effect).
    handed_on: list[Any] = field(default_factory=list)
    #: What the names an undecided `if` on a flag rebound hold on either path (a later `if` on it).
    flag_arms: FlagArms = field(default_factory=dict)


class _Returned(Exception):
    """A `return` on the path being read: the rest of the function does not run."""


class ForwardStatements:
    """Needs the reader's expressions and adds (`residual.ForwardReader`)."""

    interp: Interpreter

    if TYPE_CHECKING:  # declared only: a stub here would hide the reader's own method

        def walk_block(self, stmts: Sequence[cst.CSTNode], env: Env, state: _Flow) -> None: ...

        def _eval(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Any: ...

        def _value(self, node: cst.BaseExpression, env: Env) -> Any: ...

        def _walked(self, node: cst.BaseExpression, env: Env, flow: _Flow) -> Any: ...

        def _number(self, node: cst.BaseExpression, env: Env) -> Monomial | None: ...

        def _comprehended(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Seq | None: ...

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
        flow = _function_flow(node, func, depth, block)
        env = Env()
        params = [p.name.value for p in func.params.params]
        star = func.params.star_arg
        by_name = keyword_streams(func) if len(params) == 1 else []
        # The inputs after `self`; the keyword-only ones when there are no others.
        given = list(func.params.params[1:]) or ([] if isinstance(star, cst.Param) else list(func.params.kwonly_params))
        names = [param.name.value for param in given]
        if len(params) == 1 and isinstance(star, cst.Param):
            # `forward(self, *args, **kwargs)` handing everything on: the stream comes first.
            env.names[star.name.value] = Seq([STREAM])
        elif by_name:
            # `forward(self, *, text_tokens, image_tokens, mask=None)`: each tensor the caller
            # must pass by name is a stream of its own (a joint block over two modalities).
            env.names.update({param.name.value: CONDITIONED for param in func.params.kwonly_params})
            env.names.update({name: STREAM for name in by_name})
            flow.named = frozenset(by_name) if len(by_name) > 1 else frozenset()
        elif len(params) < 2:
            return None
        env.names[params[0]] = ModRef(node)
        inputs = from_stream(func.params.params[1:])
        for name in params[1 : len(params) - len(inputs)]:
            env.names[name] = UNKNOWN
        if inputs:
            env.names[inputs[0]] = STREAM
        flow.carried = carried_streams(func) & frozenset(inputs[1:])
        for name in inputs[1:]:
            # Computed by the caller, not from this block's stream: adaLN-zero's `gate_msa`, handed
            # in by the parent, gates a branch as one computed here from `c` does.
            env.names[name] = SECOND if name in flow.carried else CONDITIONED
        env.names.update({name: value for name, value in (handed or {}).items() if _handed_to(name, value, names)})
        try:
            self.walk_body(func.body.body, env, flow)
        except StepBudgetExceeded:
            raise
        except RecursionError:
            return None
        return flow

    def _read_owner_loop(self, block: ModuleNode) -> _Flow | None:
        """A block without a class of its own (a pair `ModuleList([attn, ff])`): its adds are in
        the loop of its container's owner's `forward`. A container kept in a list of stages
        (`ModuleList([patch_embed, layers])`) has no `forward` of its own: its owner is the
        nearest module above with one, whose loop over the stages unpacks it."""
        container = block.parent
        owner = container.parent if container is not None else None
        while owner is not None and owner.cls is None and owner.kind == "container":
            owner = owner.parent
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
        bound = bound_names(small)
        for name in bound & flow.carried - {flow.added_into}:
            # A second stream rebound otherwise than by an add (`keys = self.norm4(keys)`):
            # renormalised after the adds, as in a post-norm block, or changed in a way not read.
            for add in flow.carried_adds.pop(name, []):
                add.prenorm = False
        flow.added_into = None
        flow.runs.bound(bound)
        if flow.loops.open:
            flow.loops.statement(set(flow.runs.read), bound | stored_into(small))

    def on_if(self, stmt: cst.If, env: Env, flow: _Flow) -> None:
        decided = truth(test := self._value(stmt.test, env))
        if decided is not None and self._tests_optional_module(stmt.test, env):
            decided = None  # `if self.adapter is not None:` where __init__ may have left it None
        orelse = stmt.orelse
        else_body = [orelse] if isinstance(orelse, cst.If) else orelse.body.body if isinstance(orelse, cst.Else) else []
        if decided is None:
            self._undecided_if(stmt.body.body, else_body, env, flow, test, flag_tested(stmt.test))
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
        walks = walked_by_loop(stmt.target, stmt.iter, current_literals(flow))
        loops = [(target, None if node is None else self._walked(node, env, flow)) for target, node in walks]
        forget_literals(target_names(stmt.target), flow)
        for target, iterable in loops:
            # What is zipped beside the layers is handed in with each (LayerScale gains in a
            # ParameterList): computed elsewhere, like an extra argument of a block's `forward`.
            bind(target, CONDITIONED if len(loops) > 1 and iterable is not None else UNKNOWN, env)
        for (target, iterable), (_, node) in zip(loops, walks):
            if flow.block is not None and isinstance(iterable, ModRef) and flow.block.parent is iterable.node:
                for beside, walked in loops:
                    if beside is not target:
                        bind(beside, aligned(walked, flow.block), env)
                self._block_loop(stmt, target, env, flow, node)
                return
        if self._walks_block_by_index(stmt, env, flow):
            self._block_loop(stmt, stmt.target, env, flow)
            return
        passes, exact = loop_passes(loops, MAX_UNROLL)
        lists = {name: len(value.items) for name, value in env.names.items() if isinstance(value, Seq)}
        flow.loops.enter(self._loop_record(stmt, loops, env))
        try:
            for bound in passes[:MAX_UNROLL]:
                for target, item in bound:
                    bind(target, item, env)
                flow.loops.start_pass(target_names(stmt.target), env.names)
                self.walk_block(stmt.body.body, env, flow)
                flow.loops.end_pass(env.names)
        finally:
            flow.loops.leave()
        if not exact:
            # A list filled in a loop not read pass by pass holds as many items as it runs.
            for name, value in env.names.items():
                if isinstance(value, Seq) and filled_list(value) and len(value.items) != lists.get(name):
                    env.names[name] = UNKNOWN

    def _loop_record(self, stmt: cst.For, loops: list[tuple[cst.BaseExpression, Any]], env: Env) -> Loop:
        """What `BlockLoops` follows of a `for`: the containers whose blocks it binds to a name,
        or the count of a `for _ in range(n)`."""
        walked = [
            (target.value, iterable.node)
            for target, iterable in loops
            if isinstance(target, cst.Name) and isinstance(iterable, ModRef) and iterable.node.kind in _LISTS
        ]
        body = tuple(stmt.body.body)
        top = frozenset(id(small) for line in body if isinstance(line, cst.SimpleStatementLine) for small in line.body)
        count = range_count(stmt)
        if count is None or walked:
            return Loop(stmt, body, walked, top=top)
        counters = target_names(stmt.target)
        return Loop(stmt, body, walked, self._number(count, env), lambda: mentions(stmt.body, counters), top)

    def _walks_block_by_index(self, stmt: cst.For, env: Env, flow: _Flow) -> bool:
        """`for i in range(depth): attn, ff = self.layers[i]`: a counter that indexes the block's
        container walks its blocks as `for attn, ff in self.layers` does."""
        counter = stmt.target.value if isinstance(stmt.target, cst.Name) else None
        if flow.block is None or counter is None or range_count(stmt) is None:
            return False
        indexed = (self._value(value, env) for value in indexed_by(stmt.body, counter))
        return any(isinstance(value, ModRef) and value.node is flow.block.parent for value in indexed)

    def _block_loop(
        self, stmt: cst.For, target: cst.BaseExpression, env: Env, flow: _Flow, walked: cst.BaseExpression | None = None
    ) -> None:
        """`for attn, ff in self.layers: x = attn(x) + x`: the loop body is the block's forward,
        and what it carries from one iteration to the next is the stream. One over a slice of the
        list (`walked`: `self.layers[k:]`, or a name bound to one) runs part of the blocks."""
        assert flow.block is not None
        counter, part = flow.counter, flow.part
        if walked is not None and (one_slice(walked) or (isinstance(walked, cst.Name) and walked.value in flow.sliced)):
            flow.part = id(stmt)
        if range_count(stmt) is not None and isinstance(target, cst.Name):
            flow.counter, env.names[target.value] = target.value, UNKNOWN
        else:
            bind(target, ModRef(flow.block), env)
        # The loop's own names are bound afresh each iteration (`block = cast(Dict, block)`):
        # only the others carry the stream from one block to the next. A name still `None` or a
        # number when the loop starts carries an optional state between blocks (the previous
        # block's attention scores) or sums a side value over them (an auxiliary loss), not the
        # stream, which exists before the first.
        carried = [
            name for name in assigned_names(stmt.body) - target_names(stmt.target) - flow.unset if name in env.names
        ]
        env.names.update(dict.fromkeys(carried, STREAM))
        flow.recording = True
        try:
            self.walk_block(stmt.body.body, env, flow)
            flow.handed_on.extend(env.names[name] for name in carried)
        finally:
            flow.recording, flow.counter, flow.part = False, counter, part

    def add_either(
        self,
        left: Any,
        right: Any,
        operands: tuple[cst.BaseExpression, cst.BaseExpression],
        node: cst.CSTNode,
        flow: _Flow,
    ) -> Any:
        """An add into the stream, or of a branch into a second stream the block hands back
        (`pair = pair + self.opm(norm(x))`): recorded as an add, that stream stays what it was
        to the rest of the block."""
        values = (left, right)
        into = [
            operand.value for operand in operands if isinstance(operand, cst.Name) and operand.value in flow.carried
        ]
        flow.added_into = into[0] if into else flow.added_into
        second = [
            isinstance(operand, cst.Name) and operand.value in flow.carried and conditioned(value)
            for operand, value in zip(operands, values)
        ]
        if STREAM in values or second[0] == second[1] or not isinstance(values[second[0]], Branch):
            return self._add(left, right, node, flow)
        sides = [STREAM if is_second else value for is_second, value in zip(second, values)]
        before = len(flow.adds)
        added = self._add(sides[0], sides[1], node, flow)
        name = operands[second[1]]
        if len(flow.adds) > before and isinstance(name, cst.Name):
            for add in flow.adds[before:]:
                add.stream = name.value
            flow.carried_adds.setdefault(name.value, []).extend(flow.adds[before:])
        return SECOND if added is STREAM else added

    def _undecided_if(
        self,
        body: Sequence[cst.CSTNode],
        else_body: Sequence[cst.CSTNode],
        env: Env,
        flow: _Flow,
        test: Any = None,
        tested: tuple[str, bool] | None = None,
    ) -> None:
        """Read each arm from the state before the `if`, then join what the names hold."""
        before, first_add = dict(env.names), len(flow.adds)
        follow_flag(flow.flag_arms, tested, True, env)
        rebound = dict(flow.rebound)
        flow.undecided += 1
        flags, flow.flags = flow.flags, (*flow.flags, *([test.name] if isinstance(test, Opaque) else []))
        arms = flow.arms
        flow.arms = (*arms, (id(body), 0))
        body_returns = self.walk_body(body, env, flow)
        after_body, rebound_in_body = env.names, flow.rebound
        env.names, flow.rebound = dict(before), dict(rebound)
        follow_flag(flow.flag_arms, tested, False, env)
        flow.arms = (*arms, (id(body), 1))
        else_returns = self.walk_body(else_body, env, flow)
        flow.undecided -= 1
        flow.flags, flow.arms = flags, arms
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
            # What follows runs on that arm's path alone: its adds are alternatives to the other's.
            flow.arms = (*arms, (id(body), 1 if body_returns else 0))
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
        remember_arms(flow.flag_arms, tested, after_body, env.names, joined)
        env.names = joined

    def _small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow, depth: int) -> None:
        pairs = pairwise(small) if isinstance(small, cst.Assign) else None
        if pairs is not None:
            # `attn, ff = self.attn, self.ff`: each name its own value.
            values = [self._eval(node, env, flow, depth) for _, node in pairs]
            for (element, _), element_value in zip(pairs, values):
                self._assign(element, element_value, env)
        elif isinstance(small, cst.Assign):
            self._assign_statement(small, env, flow, depth)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, self._eval(small.value, env, flow, depth), env)
        elif isinstance(small, cst.AugAssign):
            forget_literals(target_names(small.target), flow)
            current = self._eval(small.target, env, flow, depth)
            value = self._eval(small.value, env, flow, depth)
            if isinstance(small.operator, cst.AddAssign):
                self._assign(
                    small.target, self.add_either(current, value, (small.target, small.value), small, flow), env
                )
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
                self._return_value(written, env, flow, depth)
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
        position = picked_parameter(helper) if helper is not None else None
        arguments = plain_arguments(value.args)
        if position is None or arguments is None or len(arguments) <= position:
            return None
        picked = arguments[position]
        return current_literals(flow).get(picked.value) if isinstance(picked, cst.Name) else None

    def _bind_imported_functions(self, small: cst.Import | cst.ImportFrom, env: Env) -> None:
        """`from .calls import call_layer` inside `forward`: the names it binds to functions of
        the project, which then run with their arguments as the file's own helpers do."""
        imported = Env()
        self.interp.exec_small(small, imported, Ctx(certain=False))
        for name in imported.names:
            value = self.interp.eval(cst.Name(name), imported, Ctx(certain=False))
            if _plain_function(value) is not None:
                env.names[name] = value

    def _assign_statement(self, small: cst.Assign, env: Env, flow: _Flow, depth: int) -> None:
        unpacking = len(small.targets) == 1 and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
        each = self._comprehended(small.value, env, flow, depth) if unpacking else None
        value = each if each is not None else self._eval(small.value, env, flow, depth)
        if unpacking:
            value = flow.unpacked.get(id(small.value), value)
        if flow.loops.open and isinstance(value, Branch):
            state = state_updated(small)
            if state is not None and flow.loops.carried(state, env.names):
                # `h = a_t * h + b_t` in a loop over steps: a recurrence's state, summed over the
                # passes and scaled by the products of later factors, not one layer's output: no writer.
                value = Branch((), value.normed)
        note_rebinding(small, flow, self._kept_items(small.value, flow))
        bound = {name for target in small.targets for name in target_names(target.target)}
        flow.unset = flow.unset | bound if holds_no_tensor(small.value) else flow.unset - bound
        layer = self._conditioning_layer(small.value, env, flow, depth) if unpacking and value is CONDITIONED else None
        for target in small.targets:
            if value is STREAM and _splits(small.value) and isinstance(target.target, (cst.Tuple, cst.List)):
                _bind_shares(target.target, env, flow)
            else:
                self._assign(target.target, value, env)
            if layer is not None:
                env.names.update({computed_by_key(name): layer for name in target_names(target.target)})

    def _conditioning_layer(self, value: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> ModRef | None:
        """`shift, scale, gate = self.modulation(c).chunk(3, dim=-1)` in the block: the layer that
        computed every part from the conditioning, so a branch the gate multiplies starts as small
        as that layer's init makes it (adaLN-Zero zeroes it; left at PyTorch's default, the gate
        is O(1)). `gate_msa, gate_mlp = self.modulation(c)`: a module of the file that splits its
        own output. None where the split tensor is not one layer's output."""
        receiver, kinds = value, _SPLITTING_MODULES
        if _splits(value) and isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            receiver, kinds = value.func.value, _SPLIT_LAYERS
        if not isinstance(receiver, cst.Call) or not isinstance(receiver.func, cst.Attribute):
            return None
        layer = self._eval(receiver.func, env, flow, depth)
        if not isinstance(layer, ModRef) or layer.node.kind not in kinds:
            return None
        return layer

    def _return_value(self, written: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> None:
        """`return map(split_heads, (q, k, v))` or a comprehension over `(q, k, v)`: the items of a
        tuple written out, each mapped on its own, are handed back as a tuple written out is
        (the caller unpacks them); any other value is handed back whole."""
        each = self._comprehended(written, env, flow, depth)
        if each is None:
            value = self._eval(written, env, flow, depth)
            # (`return tuple(outs)`, `outs` filled by `append`: one item per stream.)
            listed = isinstance(value, Seq) and (
                builtin_call(written, "map", env) or filled_list(value) and value.items
            )
            each = value if listed else None
            if each is None:
                flow.returns.append(value)
                return
        flow.several = True
        flow.returned_items.append(list(each.items))
        flow.returns.append(each.items[0] if each.items else UNKNOWN)

    def _assign(self, target: cst.BaseExpression, value: Any, env: Env) -> None:
        if isinstance(target, cst.Name):
            env.names[target.value] = value
            env.names.pop(computed_by_key(target.value), None)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            # `self.pos_emb = self.table(coords)`, read back later in the same `forward`.
            env.names[stored_key(target.value.value, target.attr.value)] = value
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and isinstance(value, Branch):
            # `out[mask] = expert(x[mask])`: the tensor now holds that content too.
            name = target.value.value
            env.names[name] = merge([env.names.get(name, UNKNOWN), value])
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, ModRef) and value.node.kind in _LISTS:
            bind(target, value, env)  # `norm, mlp = layer`: a container unpacks into its children
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, Seq) and value.repeat is None:
            bind(target, value, env)  # `normed, stream = fused_norm(...)`: the pair it hands back
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


def _function_flow(node: ModuleNode, func: cst.FunctionDef, depth: int, block: ModuleNode | None) -> _Flow:
    """The reading state of `node`'s `forward`; adds count only in the loop over `block`'s list."""
    literals, sliced = tuple_literals(func), sliced_names(func)
    return _Flow(node, depth=depth, block=block, recording=block is None, literals=literals, sliced=sliced)


def _handed_to(name: str, value: Any, inputs: list[str]) -> bool:
    """Whether a value handed to `forward`'s input `name` replaces what the reading gives it: any
    input after the stream; the stream's own a value of the stream (a module read as called)."""
    return name in inputs[1:] or name in inputs[:1] and not isinstance(value, (ModRef, Lambda, FuncRef))


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


_LISTS = ("container", "sequential")
#: The layers whose output a block splits into conditioning parts (`self.modulation(c).chunk(3)`),
#: and the modules of the file that split their own (`gate_msa, gate_mlp = self.modulation(c)`).
_SPLIT_LAYERS: tuple[str, ...] = ("linear", "sequential", "module")
_SPLITTING_MODULES: tuple[str, ...] = ("module",)


def note_loop_call(func: cst.BaseExpression, handed: set[str], flow: _Flow) -> None:
    """A call in a loop's body: of a name the loop binds to a block (`blk(x)`, `blk.forward(x)`),
    with the names its arguments read (not the others the statement read before it: `acc` in
    `acc = acc + expert(x)` is no input of the expert); or of a method changing its object in
    place (`outs.append(y)`)."""
    if not flow.loops.open:
        return
    callee = func.value if isinstance(func, cst.Attribute) and func.attr.value == "forward" else func
    if isinstance(callee, cst.Name):
        flow.loops.called(callee.value, handed, flow.statement)
    changed = changed_in_place(func)
    if changed is not None:
        flow.loops.changed.add(changed)

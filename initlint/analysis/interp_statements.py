"""The interpreter's statements: blocks, assignments, `if`, `match`, `for`, `return` and `raise`.

A mixin of the interpreter (`interp.Interpreter`), apart so that how a function body runs (which
paths are certain, what an undecided `if` leaves bound, what a `return` inside a branch means)
reads on its own. It also owns the record of `if` arms decided not to run: the init calls they
hold (`dead_inits`) and the helpers they would have called on a part of the model.
"""

from __future__ import annotations

import functools

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence, cast

import libcst as cst

from initlint.analysis import init_ops, python_semantics, torch_semantics
from initlint.analysis.abstract import (
    UNKNOWN,
    Choice,
    ClassPartial,
    ClassRef,
    Const,
    Env,
    ExtPartial,
    ExtRef,
    Mapping,
    ModRef,
    Opaque,
    ParamRef,
    Seq,
    merge_uncertain,
    truth,
)
from initlint.analysis.construction import callee_name, chooses_child, may_init, own_init
from initlint.analysis.forward_bindings import target_names
from initlint.analysis.index import ModuleIndex
from initlint.analysis.knowledge import Registry
from initlint.analysis.model import DeadInit
from initlint.config import AnalysisOptions

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

MAX_LOOP_ITEMS = 4000


def _store_entry(mapping: Mapping, key: Any, value: Any, ctx: Ctx) -> None:
    """`mapping[key] = value`. A loop of unknown length that fills an empty dict under keys it
    cannot name (`blocks[f"block_{i}"] = Block()`) puts one entry per pass: one representative,
    repeated as often as the loop runs, as a list appended to in that loop is."""
    if isinstance(key, Const):
        mapping.items[key.value] = value
    elif ctx.repeat is not None and not mapping.items and isinstance(value, ModRef):
        mapping.items["0"] = value
        mapping.repeat = ctx.repeat


def _unseen_none_test(test: cst.BaseExpression, env: Env) -> str | None:
    """The name `if name is None:` tests, where the name holds a value we cannot see."""
    if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1):
        return None
    operator, compared = test.comparisons[0].operator, test.comparisons[0].comparator
    if not (isinstance(operator, cst.Is) and isinstance(compared, cst.Name) and compared.value == "None"):
        return None
    return test.left.value if isinstance(env.names.get(test.left.value), Opaque) else None


def _wraps(value: Any, previous: Any) -> bool:
    """Whether module `value` holds module `previous` (`attn = SkipIf(cond, attn)`)."""
    if not (isinstance(value, ModRef) and isinstance(previous, ModRef)) or value.node is previous.node:
        return False
    return previous.node.is_under(value.node)


def _bind_name(env: Env, name: str, value: Any, ctx: Ctx) -> Any:
    """`name = value` on the path `ctx` runs. A module bound to the name in each arm of one
    undecided `if` is one of the two afterwards, as either arm may have run; so is a layer class
    (`if impl == "a": cls = A` / `else: cls = B`), and one bound on a path that may not run over
    another (an `elif` without `else`): each is built where the name is called, as
    `A if impl == "a" else B` is. A module wrapped under an undecided `if` (`if seq_len == 1:
    attn = SkipIf(cond, attn)`) is inside the model on both paths: the wrapper is read, as the
    arm of an `if` with an `else` is."""
    previous = env.names.get(name)
    if ctx.arm is None:
        env.arms.pop(name, None)
        if not ctx.certain and _wraps(value, previous):
            return value
        if not ctx.certain and name in env.names and _classes(previous) and _classes(value):
            return _either_class(previous, value)
        return merge_uncertain(env.names, name, value, ctx)
    choice, arm = ctx.arm
    other_arm = env.arms.get(name) == (choice, 0)
    env.arms[name] = ctx.arm
    if arm == 1 and other_arm and isinstance(previous, ModRef) and isinstance(value, ModRef):
        return previous if previous.node is value.node else previous.either(value)
    if arm == 1 and other_arm and _classes(previous) and _classes(value):
        return _either_class(previous, value)
    return merge_uncertain(env.names, name, value, ctx)


def _either_class(previous: Any, value: Any) -> Any:
    options: list[Any] = []
    for option in (*_options(previous), *_options(value)):
        options += [] if option in options else [option]
    return options[0] if len(options) == 1 else Choice(tuple(options))


def _options(value: Any) -> tuple[Any, ...]:
    return value.options if isinstance(value, Choice) else (value,)


def _classes(value: Any) -> bool:
    return all(isinstance(option, (ClassRef, ClassPartial, ExtRef)) for option in _options(value))


def _only_raises(body: Sequence[cst.CSTNode]) -> bool:
    """A block of one `raise`, on a line of its own or on the line of its `else:` (`else: raise
    ValueError(kind)`, whose block is the statement itself)."""
    line = body[0] if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) else None
    statements = line.body if line is not None else body
    return len(statements) == 1 and isinstance(statements[0], cst.Raise)


class _Return(Exception):
    def __init__(self, value: Any, raised: bool = False) -> None:
        self.value = value
        #: A `raise`: the path ends without a value.
        self.raised = raised


class _Continue(Exception):
    """`continue`: the rest of this pass of the loop does not run."""


class InterpStatements:
    """Runs on an `Interpreter` (it says so with `cast` where a semantics module asks for one)."""

    index: ModuleIndex
    options: AnalysisOptions
    knowledge: Registry
    maybe_returned: list[list[Any]]
    branch_taken: dict[int, bool]
    skipped_inits: dict[int, list[DeadInit]]
    declined_names: dict[str, cst.If]
    _part_helpers_in: dict[int, frozenset[str]]
    decided_choices: dict[int, tuple[cst.If, set[bool]]]
    flipped_choice: int | None
    undecided_choices: dict[int, cst.If]

    if TYPE_CHECKING:  # declared only: a stub here would hide the interpreter's own method

        def walk_block(self, stmts: Sequence[cst.CSTNode], env: Env, state: Ctx) -> None: ...

        def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any: ...

    # -------------------------------------------------------------- statements
    def exec_block(self, stmts: Sequence[cst.CSTNode], env: Env, ctx: Ctx) -> None:
        self.walk_block(stmts, env, ctx)

    def on_small(self, small: cst.BaseSmallStatement, env: Env, ctx: Ctx) -> None:
        self.exec_small(small, env, ctx)

    def on_if(self, stmt: cst.If, env: Env, ctx: Ctx) -> None:
        self.exec_if(stmt, env, ctx)

    def on_for(self, stmt: cst.For, env: Env, ctx: Ctx) -> None:
        self.exec_for(stmt, env, ctx)

    def on_while(self, stmt: cst.While, env: Env, ctx: Ctx) -> None:
        self.exec_branch(stmt.body.body, env, ctx.uncertain())

    def on_with(self, stmt: cst.With, env: Env, ctx: Ctx) -> None:
        for item in stmt.items:
            value = self.eval(item.item, env, ctx)
            if item.asname is not None:
                self.assign(item.asname.name, value, env, ctx, stmt)
        self.exec_block(stmt.body.body, env, ctx)

    def on_match(self, stmt: cst.Match, env: Env, ctx: Ctx) -> None:
        self.exec_match(stmt, env, ctx)

    def exec_branch(self, stmts: Sequence[cst.CSTNode], env: Env, ctx: Ctx) -> bool:
        """Run a block that may not run: a `return` inside it does not end the caller. True when
        every path through the block returns or raises."""
        try:
            self.exec_block(stmts, env, ctx)
        except _Return as ret:
            if not ret.raised and self.maybe_returned:
                self.maybe_returned[-1].append(ret.value)
            return True
        except _Continue:
            pass  # on a path that may not run: the rest of the pass still may
        return False

    def exec_if(self, stmt: cst.If, env: Env, ctx: Ctx, earlier: tuple[cst.If, ...] = ()) -> None:
        """`earlier`: the `if` statements of the same `if`/`elif` chain decided not to run before
        this one."""
        decided = truth(self.eval(stmt.test, env, ctx))
        if decided is not None and chooses_child(stmt):
            self.decided_choices.setdefault(id(stmt), (stmt, set()))[1].add(decided)
        decided = _as_flipped(decided, id(stmt) == self.flipped_choice)
        self.branch_taken[id(stmt)] = self.branch_taken.get(id(stmt), False) or decided is not False
        self._note_declined_arm(stmt, decided, earlier)
        orelse = stmt.orelse
        if decided is True:
            self.exec_block(stmt.body.body, env, ctx)
        elif decided is False:
            if isinstance(orelse, cst.If):
                self.exec_if(orelse, env, ctx, (*earlier, stmt))
            elif isinstance(orelse, cst.Else):
                self.exec_block(orelse.body.body, env, ctx)
        elif orelse is None and _unseen_none_test(stmt.test, env) is not None:
            self.exec_default_fill(stmt, env, ctx)
        elif isinstance(orelse, cst.Else) and _only_raises(orelse.body.body):
            # `elif kind == "b": ... else: raise ValueError(...)`: the body is the path that runs on.
            self.exec_block(stmt.body.body, env, ctx)
        else:
            if orelse is not None:
                self.undecided_choices[id(stmt)] = stmt
            body_ends = self.exec_branch(
                stmt.body.body, env, ctx.in_arm(stmt, 0) if orelse is not None else ctx.uncertain()
            )
            orelse_ends = False
            if isinstance(orelse, cst.If):
                orelse_ends = self.exec_branch([orelse], env, ctx.in_arm(stmt, 1))
            elif isinstance(orelse, cst.Else):
                orelse_ends = self.exec_branch(orelse.body.body, env, ctx.in_arm(stmt, 1))
            if body_ends and orelse_ends:
                # Both arms leave the function: nothing after the `if` runs, and the call returns
                # one of the values its arms returned (kept in `maybe_returned`).
                raise _Return(UNKNOWN, raised=True)

    def exec_match(self, stmt: cst.Match, env: Env, ctx: Ctx) -> None:
        """`match kind: case "a": ... case "b": ...` as the `if`/`elif` chain it is: the first
        case the subject's value (a config default) decides to match runs, the cases decided not
        to match do not. From a case left undecided on, each case that may match runs as an arm
        that may not run, up to one that surely does; where that one is reached and every case
        that may run leaves the function, nothing after the `match` runs."""
        subject = self.eval(stmt.subject, env, ctx)
        arms: Ctx | None = None  # the context of the cases after an undecided one
        every_arm_ends = True
        for case in stmt.cases:
            matches = self._case_matches(case, subject, env, arms or ctx, stmt)
            if matches is False:
                continue
            if matches is True and arms is None:
                self.exec_block(case.body.body, env, ctx)
                return
            arms = ctx.uncertain()
            every_arm_ends = self.exec_branch(case.body.body, env, arms) and every_arm_ends
            if matches is True:
                if every_arm_ends:
                    raise _Return(UNKNOWN, raised=True)
                return

    def _case_matches(self, case: cst.MatchCase, subject: Any, env: Env, ctx: Ctx, stmt: cst.Match) -> bool | None:
        """Whether `case` matches, its guard included; the names its pattern captures are bound
        (to the subject where the whole pattern captures it, `case other:`)."""
        interp = cast("Interpreter", self)
        matches = python_semantics.pattern_matches(interp, case.pattern, subject, env, ctx)
        if matches is False:
            return False
        whole = case.pattern.name if isinstance(case.pattern, cst.MatchAs) else None
        for name in _captured_names(case.pattern):
            value = subject if whole is not None and name == whole.value else UNKNOWN
            self.assign(cst.Name(name), value, env, ctx if matches else ctx.uncertain(), stmt)
        if case.guard is None:
            return matches
        guarded = truth(self.eval(case.guard, env, ctx if matches else ctx.uncertain()))
        return False if guarded is False else matches if guarded is True else None

    def _note_declined_arm(self, stmt: cst.If, decided: bool | None, earlier: tuple[cst.If, ...]) -> None:
        """Keep what an arm the defaults turn off would have initialised or built: the inits it
        runs, and the helpers it hands a part of the model (`init_zero_(self.out)`), options of the
        constructor left off. Where the arm taken runs an init, the chain chooses between inits
        (`if init == "zero": self._zero_init() elif init == "normal": self._normal_init()`): the
        own init methods of its other arms are alternatives it chose against, not entry points a
        trainer applies, whatever they are handed."""
        if decided is False and id(stmt) not in self.skipped_inits:
            self.skipped_inits[id(stmt)] = init_calls_in(self, stmt)
        declined = stmt.body if decided is False else stmt.orelse if decided is True else None
        if declined is None:
            return
        if id(declined) not in self._part_helpers_in:  # one walk per arm, not per run of it
            self._part_helpers_in[id(declined)] = part_helpers_called_in(declined)
        for name in self._part_helpers_in[id(declined)]:
            self.declined_names.setdefault(name, stmt)
        taken = stmt.body if decided is True else stmt.orelse if isinstance(stmt.orelse, cst.Else) else None
        if taken is None or not own_inits_called_in(taken)[0]:
            return
        for arm in (*(other.body for other in earlier), declined):
            for name in own_inits_called_in(arm)[1]:
                self.declined_names.setdefault(name, stmt)

    def exec_default_fill(self, stmt: cst.If, env: Env, ctx: Ctx) -> None:
        """`if block is None: block = Block` on an argument we cannot see: a class to build (or a
        partial of a library layer) filled in there is kept, since the unseen value would build
        no layer at all; the model is then checked as its defaults build it. Anything else the
        arm binds to that name stays undecided, as in any arm that may not run."""
        name = _unseen_none_test(stmt.test, env)
        unseen = env.names.pop(name) if name is not None else None
        self.exec_branch(stmt.body.body, env, ctx.uncertain())
        if name is not None and not isinstance(env.names.get(name), (ClassRef, ExtPartial)):
            env.names[name] = merge_uncertain({name: unseen}, name, env.names.get(name, unseen), ctx.uncertain())

    def is_init_call(self, call: cst.Call) -> bool:
        """`nn.init.normal_(...)`, `p.data.normal_(...)`, a configured init helper: by the registry."""
        func = call.func
        if isinstance(func, cst.Attribute) and self.knowledge.tensor_method(func.attr.value) is not None:
            return True
        name = self.index.resolve(func)
        if name is None:
            return False
        helpers = self.options.init_helpers
        return self.knowledge.init_function(name) is not None or name in helpers or name.rsplit(".", 1)[-1] in helpers

    def dead_inits(self) -> list[DeadInit]:
        return [dead for key, found in self.skipped_inits.items() if not self.branch_taken[key] for dead in found]

    def exec_for(self, stmt: cst.For, env: Env, ctx: Ctx) -> None:
        walked = self.eval(stmt.iter, env, ctx)
        iterable = python_semantics.iterate(cast("Interpreter", self), walked)
        if iterable is None and isinstance(walked, Opaque):
            iterable = python_semantics.stages_of(walked)
        if isinstance(iterable, Seq):
            if iterable.repeat is not None:
                # One pass per kind of item, each standing for its share of them all.
                items, inner = iterable.items[:MAX_LOOP_ITEMS], replace(ctx, repeat=iterable.repeat)
            else:
                items, inner = iterable.items[:MAX_LOOP_ITEMS], ctx
            flips = _flag_flips(stmt) if iterable.repeat is not None else ()
            for item in items:
                # Each pass binds the loop variable afresh, on whatever path the loop runs: an
                # earlier pass's value is not an alternative to merge with.
                for name in target_names(stmt.target):
                    env.names.pop(name, None)
                for name, literal in flips:
                    if name in env.names:
                        env.names[name] = self.eval(literal, env, inner)
                self.assign(stmt.target, item, env, inner, stmt)
                try:
                    self.exec_block(stmt.body.body, env, inner)
                except _Continue:
                    continue
            return
        self.assign(stmt.target, UNKNOWN, env, ctx, stmt)
        self.exec_branch(stmt.body.body, env, ctx.uncertain())

    def exec_small(self, small: cst.BaseSmallStatement, env: Env, ctx: Ctx) -> None:
        if isinstance(small, cst.Assign):
            value = self.eval(small.value, env, ctx)
            for target in small.targets:
                self.assign(target.target, value, env, ctx, small)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.eval(small.value, env, ctx), env, ctx, small)
        elif isinstance(small, cst.AugAssign):
            current = self.eval(small.target, env, ctx)
            operand = self.eval(small.value, env, ctx)
            if isinstance(current, ParamRef) and isinstance(small.operator, (cst.MultiplyAssign, cst.DivideAssign)):
                for param in current.all_params():
                    init_ops.scale_in_place(cast("Interpreter", self), param, operand, small, ctx)
                return
            if isinstance(current, Seq) and isinstance(small.operator, cst.AddAssign) and isinstance(operand, Seq):
                python_semantics.extend_list(current, operand, ctx)  # `blocks += [attn, ff]`: in place
                return
            value = python_semantics.binary(cast("Interpreter", self), small.operator, current, operand, small)
            self.assign(small.target, value, env, ctx, small)
        elif isinstance(small, cst.Expr):
            self.eval(small.value, env, ctx)
        elif isinstance(small, cst.Return):
            raise _Return(self.eval(small.value, env, ctx) if small.value is not None else Const(None))
        elif isinstance(small, cst.Raise):
            raise _Return(UNKNOWN, raised=True)
        elif isinstance(small, cst.Continue):
            raise _Continue()
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            scratch = ModuleIndex()
            from initlint.analysis.index import _record_import

            _record_import(scratch, small)
            for local, qualified in scratch.imports.items():
                env.names[local] = ExtRef(qualified)

    def assign(self, target: cst.BaseExpression, value: Any, env: Env, ctx: Ctx, stmt: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            env.names[target.value] = _bind_name(env, target.value, value, ctx)
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.items if isinstance(value, Seq) and value.repeat is None else None
            if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
                items = [ModRef(child) for child in value.node.children.values()]  # `for attn, ff in self.layers`
            elements = target.elements
            for i, element in enumerate(elements):
                part = items[i] if items is not None and len(items) == len(elements) else UNKNOWN
                if isinstance(value, ModRef) and i == 0 and items is None:
                    part = value  # `out, _ = self.attn(...)`
                self.assign(element.value, part, env, ctx, stmt)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value, env, ctx)
            if isinstance(owner, ModRef):
                torch_semantics.set_module_attr(
                    cast("Interpreter", self), owner.node, target.attr.value, value, ctx, stmt
                )
        elif isinstance(target, cst.Subscript):
            owner = self.eval(target.value, env, ctx)
            if isinstance(owner, ModRef) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                key = self.eval(target.slice[0].slice.value, env, ctx)
                name = str(key.value) if isinstance(key, Const) else "0"
                torch_semantics.set_module_attr(cast("Interpreter", self), owner.node, name, value, ctx, stmt)
            elif isinstance(owner, Mapping) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                _store_entry(owner, self.eval(target.slice[0].slice.value, env, ctx), value, ctx)


def _as_flipped(decided: bool | None, flipped: bool) -> bool | None:
    """An `if` a model variant takes the other way than its defaults decide it."""
    return not decided if flipped and decided is not None else decided


class _ArmReader(cst.CSTVisitor):
    """One walk of an arm of an `if`, for every question asked of it: its calls and every name it
    reads (the init calls of an arm that never runs, `dead_inits`); the functions it calls with a
    part of the model (`init_zero_(self.out)`), not with the model alone (`self.init_weights()`
    or `init_model_(self)` may be the entry point a trainer runs); whether it calls something
    named like an init or an in-place tensor op; and the init methods of its own it calls
    (`self._normal_init()`)."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: set[str] = set()
        self.part_helpers: set[str] = set()
        self.runs_init = False
        self.own_inits: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        name = callee_name(node.func)
        handed_part = any(not (isinstance(arg.value, cst.Name) and arg.value.value == "self") for arg in node.args)
        if name and handed_part:
            self.part_helpers.add(name)
        self.runs_init = self.runs_init or may_init(name)
        own = own_init(node.func)
        if own is not None:
            self.own_inits.add(own)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class _Captures(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.names.append(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.names.append(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.names.append(node.rest.value)


@functools.lru_cache(maxsize=512)  # asked each time the `match` runs
def _captured_names(pattern: cst.MatchPattern) -> tuple[str, ...]:
    """The names a `case` pattern binds when it matches (`case other:`, `case Point(x=px):`)."""
    captures = _Captures()
    pattern.visit(captures)
    return tuple(captures.names)


_LITERALS = (cst.Integer, cst.Float, cst.SimpleString)


@functools.lru_cache(maxsize=512)  # asked for each pass of each build of the loop
def _flag_flips(loop: cst.For) -> tuple[tuple[str, cst.BaseExpression], ...]:
    """The names a loop's body sets to a constant at its top level (`is_first = False` after
    `Block(..., is_first)`), for a loop of unknown length read as one representative pass: that
    pass stands for the blocks after the first, which see the value the pass before them left,
    not the one bound before the loop."""
    flips: list[tuple[str, cst.BaseExpression]] = []
    for statement in loop.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target, value = small.targets[0].target, small.value
            constant = isinstance(value, _LITERALS) or isinstance(value, cst.Name) and value.value in _CONSTANTS
            if isinstance(target, cst.Name) and constant:
                flips.append((target.value, value))
    return tuple(flips)


_CONSTANTS = frozenset({"True", "False", "None"})


@functools.lru_cache(maxsize=512)  # a LibCST walk of an arm, whichever questions are asked of it
def _read_arm(node: cst.CSTNode) -> _ArmReader:
    reader = _ArmReader()
    node.visit(reader)
    return reader


def part_helpers_called_in(node: cst.CSTNode) -> frozenset[str]:
    return frozenset(_read_arm(node).part_helpers)


def init_calls_in(interp: InterpStatements, stmt: cst.If) -> list[DeadInit]:
    reader = _read_arm(stmt.body)
    names = frozenset(reader.names)
    return [DeadInit(stmt, call, names) for call in reader.calls if interp.is_init_call(call)]


def own_inits_called_in(node: cst.CSTNode) -> tuple[bool, frozenset[str]]:
    reader = _read_arm(node)
    return reader.runs_init, frozenset(reader.own_inits)

"""Stage 2: an abstract interpreter over `__init__` and the init code it reaches.

Running a root class's `__init__` symbolically builds its model tree (which layers
exist, under which names, how many copies) and, in the same order PyTorch would,
records every init operation that reaches each parameter: constructor defaults,
`self.apply(fn)` (post-order, like PyTorch), HF `post_init()`, `named_parameters()`
loops with their name tests, direct `nn.init.*_` calls and in-place rescaling.

Whatever we cannot follow is recorded as uncertain rather than guessed, so rules
that need certainty stay silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence, TypeVar

import libcst as cst

from initlint import guard
from initlint.analysis import init_ops, python_semantics, torch_semantics
from initlint.analysis.abstract import (
    UNKNOWN,
    ClassPartial,
    ClassRef,
    Const,
    Env,
    ExtPartial,
    ExtRef,
    FuncRef,
    InitMethod,
    Lambda,
    Mapping,
    ModRef,
    Opaque,
    ParamRef,
    Registry,
    Seq,
    merge_uncertain,
    truth,
)
from initlint.analysis.construction import ModelBuilder
from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.knowledge import REGISTRY
from initlint.analysis.knowledge.conventions import DEPTH_NAMES, HARMLESS_CALLS
from initlint.analysis.model import DeadInit, InitOp, ModuleNode, Param
from initlint.analysis.statements import StatementWalker
from initlint.analysis.values import Monomial
from initlint.config import AnalysisOptions

# Distinct from guard's time budget; `interp.BudgetExceeded` stays for callers not yet switched.
from initlint.errors import StepBudgetExceeded as BudgetExceeded

MAX_STEPS = 400_000
MAX_CALL_DEPTH = 24
MAX_LOOP_ITEMS = 4000


T = TypeVar("T")


@dataclass(eq=False)
class Fresh:
    """The construction of a module built on a path that may not run: what its `__init__` does
    to the modules it builds happens whenever they exist, as certain as that code is."""

    outer: "Ctx"
    #: ids of the modules this construction built.
    nodes: set[int] = field(default_factory=set)

    def built(self, node: ModuleNode | None) -> bool:
        while node is not None:
            if id(node) in self.nodes:
                return True
            node = node.parent
        return False


@dataclass(frozen=True)
class Ctx:
    certain: bool = True
    via: tuple[str, ...] = ()
    depth: int = 0
    owner: ClassInfo | None = None
    self_value: Any = None
    repeat: Monomial | None = None
    #: Inside one arm of an undecided `if` that has an `else`, reached on a certain path.
    arm: tuple[int, int] | None = None
    #: Inside the `__init__` of a module built on an uncertain path: certain relative to it.
    fresh: Fresh | None = None

    def uncertain(self) -> "Ctx":
        return replace(self, certain=False, arm=None) if self.certain or self.arm else self

    def in_arm(self, choice: cst.If, arm: int) -> "Ctx":
        """One of two arms of `choice`: uncertain, but certain relative to the arm."""
        return replace(self, certain=False, arm=(id(choice), arm)) if self.certain else self.uncertain()

    def constructing(self, node: ModuleNode) -> "Ctx":
        """The context `node`'s `__init__` runs in: certain relative to `node` where the path
        that builds it may not run (the built module exists only if it does)."""
        self.note_built(node)
        if self.certain:
            return self
        return replace(self, certain=True, arm=None, fresh=Fresh(self, {id(node)}))

    def note_built(self, node: ModuleNode) -> None:
        """`node` is built by the running construction (a layer, or a module of the code)."""
        if self.fresh is not None:
            self.fresh.nodes.add(id(node))

    def toward(self, node: ModuleNode | None) -> "Ctx":
        """The context an effect on `node` has: a module the running construction did not build
        keeps the uncertainty of the path that reached the construction."""
        outer = self
        while outer.fresh is not None and not outer.fresh.built(node):
            outer = outer.fresh.outer
        return self if outer is self else replace(self, certain=outer.certain, arm=outer.arm, fresh=outer.fresh)


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    return []


def _only_value(values: list[Any]) -> Any:
    """What a call returns when the paths that return give `values` and every other path raises."""
    return values[0] if values and all(value is values[0] or value == values[0] for value in values) else UNKNOWN


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


def _bind_name(env: Env, name: str, value: Any, ctx: Ctx) -> Any:
    """`name = value` on the path `ctx` runs. A module bound to the name in each arm of one
    undecided `if` is one of the two afterwards, as either arm may have run."""
    if ctx.arm is None:
        env.arms.pop(name, None)
        return merge_uncertain(env.names, name, value, ctx)
    previous = env.names.get(name)
    choice, arm = ctx.arm
    other_arm = env.arms.get(name) == (choice, 0)
    env.arms[name] = ctx.arm
    if arm == 1 and other_arm and isinstance(previous, ModRef) and isinstance(value, ModRef):
        return previous if previous.node is value.node else previous.either(value)
    return merge_uncertain(env.names, name, value, ctx)


class _Return(Exception):
    def __init__(self, value: Any, raised: bool = False) -> None:
        self.value = value
        #: A `raise`: the path ends without a value.
        self.raised = raised


class _Continue(Exception):
    """`continue`: the rest of this pass of the loop does not run."""


class Interpreter(ModelBuilder, StatementWalker[Ctx]):
    def __init__(self, index: ModuleIndex, module: cst.Module, options: AnalysisOptions) -> None:
        self.index = index
        self.module = module
        self.options = options
        self.knowledge = REGISTRY.extended(options.layer_classes)
        self.steps = 0
        self.building: list[str] = []
        self._constants: dict[str, Any] = {}
        #: Set when something that may init parameters could not be followed.
        self.incomplete = False
        #: ids of the function definitions the interpretation ran.
        self.executed: set[int] = set()
        self._code: dict[int, str] = {}
        #: Functions being run, innermost last: a function that reaches itself again is not followed.
        self.running: list[int] = []
        #: Classes built as a part of another (on any path, taken or not): they are not roots.
        self.instantiated: set[str] = set()
        #: Names that mean "number of blocks" (a dict config's entry by that name stays a symbol).
        self.depth_names = frozenset(options.depth_names) | DEPTH_NAMES
        #: Set when the code reads a config field of a deliberate scheme (muP and relatives).
        self.deliberate_scheme: str | None = None
        #: Enum-valued config fields read at their defaults (`ModelConfig.init_fn = InitFnType.normal`).
        self.enum_defaults: dict[str, cst.CSTNode] = {}
        #: Per running function, the values returned on paths that may not run: where every
        #: other path raises (`if kind == "a": return cls(...)` then `raise`), the call returns one.
        self.maybe_returned: list[list[Any]] = []
        #: `if` statements evaluated, by id: whether the body ever ran.
        self.branch_taken: dict[int, bool] = {}
        #: Init calls in the bodies of `if` statements whose test was false, by the statement's id.
        self.skipped_inits: dict[int, list[DeadInit]] = {}
        #: Functions called on a part of the model in the arms of `if` statements decided not to
        #: run: an option of the constructor itself, left off, not an entry point for someone else.
        self.declined_names: set[str] = set()
        self._part_helpers_in: dict[int, set[str]] = {}
        #: Calls whose every path raised on a path that always runs.
        self.certain_raises = 0

    # ----------------------------------------------------------------- helpers
    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise BudgetExceeded(f"more than {MAX_STEPS} interpretation steps")
        if not self.steps & 1023:
            guard.check_deadline()

    def code(self, node: cst.CSTNode) -> str:
        cached = self._code.get(id(node))
        if cached is None:
            try:
                cached = self.module.code_for_node(node).strip()
            except Exception:  # code generation of a detached node
                cached = "<expr>"
            self._code[id(node)] = cached
        return cached

    def global_value(self, name: str) -> Any:
        index = self.index
        if name in index.classes:
            return ClassRef(index.classes[name])
        if name in index.functions:
            return FuncRef(index.functions[name])
        if name in index.imports:
            return ExtRef(index.imports[name])
        if name in index.constants:
            if name not in self._constants:
                self._constants[name] = UNKNOWN  # guards self-reference
                self._constants[name] = self.eval(index.constants[name], Env(), Ctx())
                self.fill_table(name, self._constants[name], self.module.body)
            return self._constants[name]
        if name in python_semantics.CONSTANTS:
            return Const(python_semantics.CONSTANTS[name])
        if name in python_semantics.BUILTIN_NAMES:
            return ExtRef(f"builtins.{name}")
        return Opaque(name)

    def fill_table(self, name: str, value: Any, body: Sequence[cst.CSTNode]) -> None:
        """A module-level dict that the module's own functions fill when it is imported
        (`register_kind("dense", nn.Linear)` storing into `_KINDS`): those calls run, in order,
        once the dict is bound (they read it by name)."""
        if not isinstance(value, Mapping):
            return
        calls = table_fills(body, name, self.index.functions)
        if calls:
            value.open = True  # another module may call the registering function too
        for call in calls:
            self.eval(call, Env(), Ctx())

    def root_context(self) -> Ctx:
        return Ctx(via=())

    def registry_entries(self, registry: Registry) -> dict[str, Any]:
        """What the project registers in `registry`; a file read alone sees no registrations."""
        return {}

    def inside(self, item: object, work: Callable[[], T]) -> T:
        """Run `work` with the names of the module `item` (a class or function) is defined in:
        this file's, unless the project's analysis links another (`linking.LinkedInterpreter`)."""
        return work()

    def in_module(self, index: ModuleIndex | None, work: Callable[[], T]) -> T:
        """Run `work` with the names of the module `index` reads (a lambda's, where it was
        written): this file's, unless the project's analysis links another."""
        return work()

    # ------------------------------------------------------------------- calls
    def call_function(self, ref: FuncRef, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx) -> Any:
        if ctx.depth >= MAX_CALL_DEPTH:
            self.incomplete = True
            return UNKNOWN
        func = ref.func
        if self.running.count(id(func)) >= 2:
            self.incomplete = True  # recursion through init code: stop following it
            return UNKNOWN
        self.executed.add(id(func))
        env = ref.closure.child() if ref.closure is not None else Env()
        positional = list(ref.partial_args) + list(args)
        if ref.bound is not None:
            positional = [ref.bound] + positional
        named = dict(ref.partial_kwargs)
        named.update(kwargs)
        params = func.params
        all_params = list(params.posonly_params) + list(params.params)
        for i, param in enumerate(all_params + list(params.kwonly_params)):
            name = param.name.value
            if i < len(all_params) and i < len(positional):
                env.names[name] = positional[i]
            elif name in named:
                env.names[name] = named.pop(name)
            elif param.default is not None:
                env.names[name] = self.eval(param.default, Env(), ctx)
            else:
                env.names[name] = Opaque(name)
        if isinstance(params.star_arg, cst.Param):
            env.names[params.star_arg.name.value] = Seq(positional[len(all_params) :])
        if isinstance(params.star_kwarg, cst.Param):
            env.names[params.star_kwarg.name.value] = Mapping(named)
        self_value = positional[0] if ref.owner is not None and positional else ctx.self_value
        inner = replace(ctx, depth=ctx.depth + 1, owner=ref.owner or ctx.owner, self_value=self_value, repeat=None)
        self.running.append(id(func))
        self.maybe_returned.append([])
        try:
            # (A one-line suite, `def forward(self, x): return f(x)`, holds its small statements.)
            self.exec_block(func.body.body, env, inner)
        except _Return as ret:
            if ret.raised and ctx.certain and not self.maybe_returned[-1]:
                self.certain_raises += 1  # every path raises: the program stops here
            return _only_value(self.maybe_returned[-1]) if ret.raised else ret.value
        finally:
            self.running.pop()
            self.maybe_returned.pop()
        return Const(None)

    def call_value(self, callee: Any, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.Call) -> Any:
        self.tick()
        if isinstance(callee, FuncRef):
            return self.call_function(callee, args, kwargs, ctx)
        if isinstance(callee, Lambda):
            # A lambda reads the variables and the module it was written in, not its caller's.
            env = callee.closure.child() if isinstance(callee.closure, Env) else Env()
            for param, value in zip(callee.node.params.params, args):
                env.names[param.name.value] = value
            body = callee.node.body
            return self.in_module(callee.scope, lambda: self.eval(body, env, ctx))
        if isinstance(callee, ClassRef):
            return self.instantiate(callee.cls, args, kwargs, call, ctx)
        if isinstance(callee, ClassPartial):
            return self.instantiate(callee.cls, [*callee.args, *args], {**dict(callee.kwargs), **kwargs}, call, ctx)
        if isinstance(callee, InitMethod):
            return init_ops.apply_init_method(callee, args, ctx)
        if isinstance(callee, ExtRef):
            return torch_semantics.call_external(self, callee.name, args, kwargs, ctx, call)
        if isinstance(callee, ExtPartial):
            bound = [*callee.args, *args]
            return torch_semantics.call_external(self, callee.name, bound, {**dict(callee.kwargs), **kwargs}, ctx, call)
        if isinstance(callee, python_semantics.BoundMethod):
            return torch_semantics.call_method(self, callee, args, kwargs, ctx, call)
        if isinstance(callee, Opaque) and callee.name in HARMLESS_CALLS:
            return UNKNOWN  # `log.debug(self)` on a logger made elsewhere: it only reads the model
        self.mark_unknown_targets(args, kwargs, ctx, call, "a call initlint cannot follow")
        return UNKNOWN

    def mark_unknown_targets(
        self, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.CSTNode, why: str
    ) -> None:
        """A call we cannot follow receives modules or parameters: it may initialise them."""
        touched = False
        for value in list(args) + list(kwargs.values()):
            params: list[Param] = []
            if isinstance(value, ModRef):
                params = [p for _, p in value.node.named_parameters()]
            elif isinstance(value, ParamRef):
                params = [value.param]
            for param in params:
                touched = True
                param.ops.append(InitOp("unknown", None, call, ctx.via + (self.code(call)[:80],), False, why))
        if touched:
            self.incomplete = True

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

    def on_function_def(self, stmt: cst.FunctionDef, env: Env, ctx: Ctx) -> None:
        env.names[stmt.name.value] = FuncRef(stmt, closure=env)

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

    def exec_if(self, stmt: cst.If, env: Env, ctx: Ctx) -> None:
        decided = truth(self.eval(stmt.test, env, ctx))
        self.branch_taken[id(stmt)] = self.branch_taken.get(id(stmt), False) or decided is not False
        if decided is False and id(stmt) not in self.skipped_inits:
            self.skipped_inits[id(stmt)] = init_calls_in(self, stmt)
        orelse = stmt.orelse
        declined = stmt.body if decided is False else orelse if decided is True else None
        if declined is not None:
            if id(declined) not in self._part_helpers_in:  # one walk per arm, not per run of it
                self._part_helpers_in[id(declined)] = part_helpers_called_in(declined)
            self.declined_names |= self._part_helpers_in[id(declined)]
        if decided is True:
            self.exec_block(stmt.body.body, env, ctx)
        elif decided is False:
            if isinstance(orelse, cst.If):
                self.exec_if(orelse, env, ctx)
            elif isinstance(orelse, cst.Else):
                self.exec_block(orelse.body.body, env, ctx)
        elif orelse is None and _unseen_none_test(stmt.test, env) is not None:
            self.exec_default_fill(stmt, env, ctx)
        else:
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
        iterable = python_semantics.iterate(self, self.eval(stmt.iter, env, ctx))
        if isinstance(iterable, Seq):
            if iterable.repeat is not None:
                items, inner = iterable.items[:1], replace(ctx, repeat=iterable.repeat)
            else:
                items, inner = iterable.items[:MAX_LOOP_ITEMS], ctx
            for item in items:
                # Each pass binds the loop variable afresh, on whatever path the loop runs: an
                # earlier pass's value is not an alternative to merge with.
                for name in _bound_names(stmt.target):
                    env.names.pop(name, None)
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
                init_ops.scale_in_place(self, current.param, operand, small, ctx)
                return
            value = python_semantics.binary(self, small.operator, current, operand, small)
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
                torch_semantics.set_module_attr(self, owner.node, target.attr.value, value, ctx, stmt)
        elif isinstance(target, cst.Subscript):
            owner = self.eval(target.value, env, ctx)
            if isinstance(owner, ModRef) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                key = self.eval(target.slice[0].slice.value, env, ctx)
                name = str(key.value) if isinstance(key, Const) else "0"
                torch_semantics.set_module_attr(self, owner.node, name, value, ctx, stmt)
            elif isinstance(owner, Mapping) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                _store_entry(owner, self.eval(target.slice[0].slice.value, env, ctx), value, ctx)

    # ------------------------------------------------------------- expressions
    def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any:
        self.tick()
        if node is None:
            return Const(None)
        handler = _EXPRESSIONS.get(type(node))
        return handler(self, node, env, ctx) if handler is not None else UNKNOWN

    def _name(self, node: cst.Name, env: Env, ctx: Ctx) -> Any:
        if node.value in env.names:
            return env.names[node.value]
        return self.global_value(node.value)

    def _literal(self, node: cst.BaseExpression, env: Env, ctx: Ctx) -> Any:
        try:
            return Const(ast.literal_eval(self.code(node)))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return UNKNOWN

    def _attribute(self, node: cst.Attribute, env: Env, ctx: Ctx) -> Any:
        return torch_semantics.get_attr(self, self.eval(node.value, env, ctx), node.attr.value, ctx)

    def _binary(self, node: cst.BinaryOperation, env: Env, ctx: Ctx) -> Any:
        return python_semantics.binary(
            self, node.operator, self.eval(node.left, env, ctx), self.eval(node.right, env, ctx), node
        )

    def _unary(self, node: cst.UnaryOperation, env: Env, ctx: Ctx) -> Any:
        return python_semantics.unary(node.operator, self.eval(node.expression, env, ctx), node)

    def _if_expression(self, node: cst.IfExp, env: Env, ctx: Ctx) -> Any:
        test = self.eval(node.test, env, ctx)
        decided = truth(test)
        if decided is None and isinstance(test, Opaque) and _has_none_arm(node):
            # `nn.Parameter(torch.zeros(n)) if bias else None`: as the config's default builds it.
            decided = self.index.config_flag(test.name)
        if decided is True:
            return self.eval(node.body, env, ctx)
        if decided is False:
            return self.eval(node.orelse, env, ctx)
        body = self.eval(node.body, env, ctx.uncertain())
        return body if isinstance(body, ModRef) else UNKNOWN

    def _sequence(self, node: cst.Tuple | cst.List | cst.Set, env: Env, ctx: Ctx) -> Any:
        items: list[Any] = []
        for element in node.elements:
            value = self.eval(element.value, env, ctx)
            if not isinstance(element, cst.StarredElement):
                items.append(value)
            elif isinstance(value, Seq) and value.repeat is None:
                items.extend(value.items)
            else:
                return UNKNOWN
        return Seq(items)

    def _dict(self, node: cst.Dict, env: Env, ctx: Ctx) -> Any:
        mapping: dict[Any, Any] = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = self.eval(element.key, env, ctx)
                if isinstance(key, Const):
                    mapping[key.value] = self.eval(element.value, env, ctx)
            else:
                spread = self.eval(element.value, env, ctx)  # `{"width": w, **options}`
                if isinstance(spread, Mapping):
                    mapping.update(spread.items)
        return Mapping(mapping)

    def _named_expression(self, node: cst.NamedExpr, env: Env, ctx: Ctx) -> Any:
        value = self.eval(node.value, env, ctx)
        self.assign(node.target, value, env, ctx, node)
        return value

    def eval_call(self, node: cst.Call, env: Env, ctx: Ctx) -> Any:
        callee = self.eval(node.func, env, ctx)
        args: list[Any] = []
        kwargs: dict[Any, Any] = {}
        for arg in node.args:
            value = self.eval(arg.value, env, ctx)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            elif arg.star == "*":
                if isinstance(value, Seq) and value.repeat is None:
                    args.extend(value.items)
                else:
                    args.append(value)
            elif arg.star == "**":
                if isinstance(value, Mapping):
                    kwargs.update({str(k): v for k, v in value.items.items()})
            else:
                args.append(value)
        return self.call_value(callee, args, kwargs, ctx, node)


Expression = Callable[[Interpreter, Any, Env, Ctx], Any]
#: Expression node type -> its meaning; any other expression evaluates to UNKNOWN.
_EXPRESSIONS: dict[type, Expression] = {
    cst.Name: Interpreter._name,
    **dict.fromkeys((cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString), Interpreter._literal),
    cst.Attribute: Interpreter._attribute,
    cst.Call: Interpreter.eval_call,
    cst.BinaryOperation: Interpreter._binary,
    cst.UnaryOperation: Interpreter._unary,
    cst.BooleanOperation: lambda interp, node, env, ctx: python_semantics.boolean(interp, node, env, ctx),
    cst.Comparison: lambda interp, node, env, ctx: python_semantics.compare(interp, node, env, ctx),
    cst.IfExp: Interpreter._if_expression,
    **dict.fromkeys((cst.Tuple, cst.List, cst.Set), Interpreter._sequence),
    cst.Dict: Interpreter._dict,
    **dict.fromkeys(
        (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp),
        lambda interp, node, env, ctx: python_semantics.comprehension(interp, node, env, ctx),
    ),
    cst.Subscript: lambda interp, node, env, ctx: python_semantics.subscript(interp, node, env, ctx),
    cst.Lambda: lambda interp, node, env, ctx: Lambda(node, env, interp.index),
    cst.NamedExpr: Interpreter._named_expression,
}


class _TableStore(cst.CSTVisitor):
    """Whether a function stores an entry into the module-level dict `table` (`table[key] = v`)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.found = False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        target = node.target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.found = self.found or target.value.value == self.table


def _stores_into(func: cst.FunctionDef, table: str) -> bool:
    store = _TableStore(table)
    func.body.visit(store)
    return store.found


def table_fills(body: Sequence[cst.CSTNode], table: str, functions: dict[str, cst.FunctionDef]) -> list[cst.Call]:
    """The module-level calls (`register_kind(...)` as a statement) of the module's functions
    that store into `table`, in source order: what fills it on import."""
    found: list[cst.Call] = []
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value in functions
                and _stores_into(functions[call.func.value], table)
            ):
                found.append(call)
    return found


class _BranchReader(cst.CSTVisitor):
    """The init calls in a block and every name it reads."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self.calls: list[cst.Call] = []
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if self.interp.is_init_call(node):
            self.calls.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class _PartHelperCalls(cst.CSTVisitor):
    """Functions called with a part of the model (`init_zero_(self.out)`), not with the model
    alone: `self.init_weights()` or `init_model_(self)` may be the entry point a trainer runs."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = (
            func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        )
        handed_part = any(not (isinstance(arg.value, cst.Name) and arg.value.value == "self") for arg in node.args)
        if name is not None and handed_part:
            self.names.add(name)


def part_helpers_called_in(node: cst.CSTNode) -> set[str]:
    reader = _PartHelperCalls()
    node.visit(reader)
    return reader.names


def init_calls_in(interp: Interpreter, stmt: cst.If) -> list[DeadInit]:
    reader = _BranchReader(interp)
    stmt.body.visit(reader)
    names = frozenset(reader.names)
    return [DeadInit(stmt, call, names) for call in reader.calls]


def _has_none_arm(node: cst.IfExp) -> bool:
    return any(isinstance(arm, cst.Name) and arm.value == "None" for arm in (node.body, node.orelse))

"""Stage 2: an abstract interpreter over `__init__` and the init code it reaches.

Running a root class's `__init__` symbolically builds its model tree (which layers
exist, under which names, how many copies) and, in the same order PyTorch would,
records every init operation that reaches each parameter: constructor defaults,
`self.apply(fn)` (post-order, like PyTorch), HF `post_init()`, `named_parameters()`
loops with their name tests, direct `nn.init.*_` calls and in-place rescaling.

Whatever we cannot follow is recorded as uncertain rather than guessed, so rules
that need certainty stay silent.

This module owns the interpreter's context (`Ctx`: how certain the running path is), its state,
its budget and its calls. The interpreter is one class assembled from mixins, one per topic:
statements in `interp_statements.py`, expressions in `interp_expressions.py`, building model
trees in `construction.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence, TypeVar

import libcst as cst

from initlint import guard
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
    FuncRef,
    InitMethod,
    Lambda,
    Mapping,
    ModRef,
    Opaque,
    ParamRef,
    Registry,
    Seq,
)
from initlint.analysis.construction import ModelBuilder
from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.interp_expressions import _EXPRESSIONS, InterpExpressions
from initlint.analysis.interp_statements import InterpStatements, _Return
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
    #: Inside a function called from such a pass (a stage's `__init__` handed the loop's index):
    #: the index it was handed still names one pass of that loop.
    in_repeat: bool = False
    #: Inside one arm of an undecided `if` that has an `else`, reached on a certain path.
    arm: tuple[int, int] | None = None
    #: Inside the `__init__` of a module built on an uncertain path: certain relative to it.
    fresh: Fresh | None = None

    def calling(self, owner: ClassInfo | None, self_value: Any) -> "Ctx":
        """The context a called function's body runs in: one call deeper, in no loop pass of its
        own, but knowing whether its caller runs in one."""
        return replace(
            self,
            depth=self.depth + 1,
            owner=owner or self.owner,
            self_value=self_value,
            repeat=None,
            in_repeat=self.in_repeat or self.repeat is not None,
        )

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


def _only_value(values: list[Any], per_layer: bool = False) -> Any:
    """What a call returns when the paths that return give `values` and every other path raises.
    Called once per layer of a list (`get_block(config, i) for i in range(n)`), or by a function
    that is (a per-layer helper building each block calls `build_norm(config.norm)`), modules built in
    different arms (`if i in attn_layers: return Attn(...)` / `else: return Conv(...)`) make one
    module that is either of them, as a name bound in both arms does: each layer is one of them.
    For a single slot the choice stays unknown."""
    if per_layer and values and all(isinstance(value, ModRef) for value in values):
        chosen = values[0]
        for other in values[1:]:
            if other.node is not chosen.node:
                chosen = chosen.either(other)
        return chosen
    return values[0] if values and all(value is values[0] or value == values[0] for value in values) else UNKNOWN


class Interpreter(InterpExpressions, InterpStatements, ModelBuilder, StatementWalker[Ctx]):
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
        #: Functions called on a part of the model in an arm of an `if` decided not to run, and
        #: the own init methods of the arms an init-choosing chain did not take, each with the
        #: `if` declining it: options of the constructor left off, not entry points for someone else.
        self.declined_names: dict[str, cst.If] = {}
        self._part_helpers_in: dict[int, frozenset[str]] = {}
        #: `if`s choosing a child met while building a root, decided as its defaults decide: by id,
        #: the statement and the decisions taken; and the one a variant of the root takes the other way.
        self.decided_choices: dict[int, tuple[cst.If, set[bool]]] = {}
        self.flipped_choice: int | None = None
        #: Parameters of the root being built that a preset of the project sets (`prenorm=True`).
        self.preset_flags: dict[str, Any] = {}
        #: `if`s with an `else` whose test was left undecided, by id (the arm a module is built in
        #: names its test).
        self.undecided_choices: dict[int, cst.If] = {}
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
        inner = ctx.calling(ref.owner, self_value)
        self.running.append(id(func))
        self.maybe_returned.append([])
        try:
            # (A one-line suite, `def forward(self, x): return f(x)`, holds its small statements.)
            self.exec_block(func.body.body, env, inner)
        except _Return as ret:
            if ret.raised and ctx.certain and not self.maybe_returned[-1]:
                self.certain_raises += 1  # every path raises: the program stops here
            per_layer = ctx.repeat is not None or ctx.in_repeat
            return _only_value(self.maybe_returned[-1], per_layer) if ret.raised else ret.value
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
        if isinstance(callee, Choice) and all(isinstance(o, (ClassRef, ClassPartial, ExtRef)) for o in callee.options):
            # One of two layer classes an undecided test picked: either may be what is built.
            built = [self.call_value(option, args, kwargs, ctx.uncertain(), call) for option in callee.options]
            if all(isinstance(module, ModRef) for module in built):
                return ModRef(built[0].node, tuple(module.node for module in built[1:]))
            return UNKNOWN
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
                params = list(value.all_params())
            for param in params:
                touched = True
                param.ops.append(InitOp("unknown", None, call, ctx.via + (self.code(call)[:80],), False, why))
        if touched:
            self.incomplete = True

    # ------------------------------------------------------------- expressions
    def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any:
        self.tick()
        if node is None:
            return Const(None)
        handler = _EXPRESSIONS.get(type(node))
        return handler(self, node, env, ctx) if handler is not None else UNKNOWN


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

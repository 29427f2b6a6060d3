"""Init functions a model's construction leaves uncalled: the entry points a trainer or a
loader applies (`model.init_weights()`, `model.apply(model._init_weights)`), found by what they
may write, and the parameters whose init such a call would leave as it is."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import libcst as cst

from initlint.analysis.abstract import FuncRef, ModRef
from initlint.analysis.construction import callee_name, init_like, may_init, own_init
from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.interp import Interpreter
from initlint.analysis.model import FinalInit, ModuleNode, final_init
from initlint.analysis.usage import NameUses
from initlint.errors import StepBudgetExceeded


class _BodyWrites(cst.CSTVisitor):
    """What an init function's body writes, read once for both questions asked of it.

    Whether it may write a tensor itself (`found`): an in-place call (`normal_`, `copy_`), a call
    of something named like an init or of `apply`, an augmented or `.data`/`.weight` assignment,
    nested functions included. A call of a method of its own named like an init
    (`self.init_state(x)`) is kept apart (`own_inits`): what that method does decides it.

    A call of a method named like an init of an object the module holds (`self.cache.init_state(
    n)`, a helper building a decoding cache) is kept apart too (`held_inits`): what that object's
    method does decides it.

    And what each write goes into, for whether it writes only tensors it makes (`targets`, with
    `bound`, the values each plain name is assigned): the written expression, or None for a write
    into something else (an attribute or an item, an `apply`, an init-like call, anything a
    nested function writes, which is not followed). A method call (`t.normal_()`) keeps its
    callee: whether `nn.init.normal_` is a function of torch or a tensor's method is the
    interpreter's to say."""

    def __init__(self) -> None:
        self.found = False
        self.own_inits: list[str] = []
        self.held_inits: list[tuple[str, str]] = []
        self.bound: dict[str, list[cst.BaseExpression]] = {}
        #: (the written expression or None, the in-place call's `x.name_` callee if it has one)
        self.targets: list[tuple[cst.BaseExpression | None, cst.Attribute | None]] = []
        self._nested = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._nested:
            self.targets.append((None, None))
        self._nested += 1

    def leave_FunctionDef(self, _original_node: cst.FunctionDef) -> None:
        self._nested -= 1

    def visit_Call(self, node: cst.Call) -> None:
        name = callee_name(node.func)
        if not self._nested:
            self._target_of_call(node, name)
        if own_init(node.func) is not None and not name.endswith("_"):
            self.own_inits.append(name)
            return
        held = _held_init(node.func)
        if held is not None and not name.endswith("_"):
            self.held_inits.append(held)
            return
        self.found = self.found or name == "apply" or may_init(name)

    def _target_of_call(self, node: cst.Call, name: str) -> None:
        if name == "apply" or init_like(name):
            self.targets.append((None, None))
        elif name.endswith("_"):
            # `t.normal_()` writes `t`; `nn.init.normal_(t)` its first argument.
            first = node.args[0].value if node.args and not node.args[0].keyword else None
            self.targets.append((first, node.func if isinstance(node.func, cst.Attribute) else None))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found = True
        if not self._nested:
            self.targets.append((node.target, None))

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._nested:
            return
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.bound.setdefault(target.target.value, []).append(node.value)
            elif isinstance(target.target, (cst.Attribute, cst.Subscript)):
                self.targets.append((None, None))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        target = node.target
        self.found = self.found or isinstance(target, cst.Attribute) and target.attr.value in _TENSOR_FIELDS


_TENSOR_FIELDS = frozenset({"data", "weight", "bias"})


def _held_init(func: cst.BaseExpression) -> tuple[str, str] | None:
    """`self.cache.init_state`: the attribute and the init-named method of a call on an object
    the module holds."""
    if not (isinstance(func, cst.Attribute) and init_like(func.attr.value)):
        return None
    holder = func.value
    if isinstance(holder, cst.Attribute) and isinstance(holder.value, cst.Name) and holder.value.value == "self":
        return holder.attr.value, func.attr.value
    return None


@lru_cache(maxsize=512)  # a LibCST walk of the whole function, asked per root and per model class
def _body_writes(func: cst.FunctionDef) -> _BodyWrites:
    finder = _BodyWrites()
    func.body.visit(finder)
    return finder


@dataclass(frozen=True)
class Holder:
    """What `self` stands for in a method: the modules (or helper objects) of one class, where
    its `self.name(...)` and `self.part.name(...)` calls lead."""

    index: ModuleIndex
    cls: ClassInfo
    nodes: tuple[ModuleNode, ...]

    def method(self, name: str) -> cst.FunctionDef | None:
        found = self.index.find_method(self.cls, name)
        return found[1] if found is not None else None

    def held_methods(self, attr: str, name: str) -> list[tuple[cst.FunctionDef, Holder]] | None:
        """The method `name` of each object held under `attr`, with what `self` stands for in
        it; None where one of them is not an object of a class of the project (a library layer,
        a value the interpreter could not follow) or has no such method."""
        held: dict[int, list[ModuleNode]] = {}
        for node in self.nodes:
            value = node.children.get(attr) or node.attrs.get(attr)
            parts = [value.node, *value.others] if isinstance(value, ModRef) else [value]
            for part in parts:
                if not isinstance(part, ModuleNode) or part.cls is None:
                    return None
                held.setdefault(id(part.cls), []).append(part)
        found = []
        for parts in held.values():
            cls = parts[0].cls
            assert cls is not None
            holder = Holder(self.index, cls, tuple(parts))
            method = holder.method(name)
            if method is None:
                return None
            found.append((method, holder))
        return found or None


def may_write_weights(func: cst.FunctionDef, holder: Holder | None = None, depth: int = 0) -> bool:
    """A function named like an init that cannot write a tensor (`_non_meta_init_device`, which
    picks a device; a backbone mixin's `_init_timm_backbone`, which sets attributes) initialises
    nothing, whoever calls it. A stub (`def init_model_randomly(self): ...`, `raise
    NotImplementedError`) still counts: it stands for the override a trainer calls. A method of
    its own it calls (`return self.init_state(x)`, a decoder's search state) writes what that
    method writes, and so does one of an object it holds (`self.cache.init_state(n)`, a helper
    that builds a cache), where `holder` finds it; one it cannot find may write anything."""
    if _is_stub(func):
        return True
    body = _body_writes(func)
    if body.found:
        return True
    follow = holder is not None and depth < _MAX_OWN_CALLS
    for name in body.own_inits:
        callee = holder.method(name) if holder is not None and follow else None
        if callee is None or callee is func or may_write_weights(callee, holder, depth + 1):
            return True
    for attr, name in body.held_inits:
        callees = holder.held_methods(attr, name) if holder is not None and follow else None
        if callees is None or any(may_write_weights(callee, held, depth + 1) for callee, held in callees):
            return True
    return False


#: How many calls of its own methods deep a function's writes are followed.
_MAX_OWN_CALLS = 4


def _is_stub(func: cst.FunctionDef) -> bool:
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else [func.body]
    for statement in body:
        small = statement.body if isinstance(statement, cst.SimpleStatementLine) else None
        if small is None or not all(_stub_statement(part) for part in small):
            return False
    return True


def _stub_statement(part: cst.BaseSmallStatement) -> bool:
    if isinstance(part, (cst.Pass, cst.Raise)):
        return True
    return isinstance(part, cst.Expr) and isinstance(
        part.value, (cst.Ellipsis, cst.SimpleString, cst.ConcatenatedString)
    )


class _OwnTensors:
    """Whether every write of a function goes into a tensor it makes itself: a name bound once to
    a tensor factory (`t = torch.empty(shape)`), or a factory call written in place."""

    def __init__(self, func: cst.FunctionDef, interp: Interpreter) -> None:
        self.interp = interp
        self.body = _body_writes(func)
        self.outside = {param.name.value for param in _all_params(func.params)}

    def _written(self, target: cst.BaseExpression | None, method: cst.Attribute | None) -> cst.BaseExpression | None:
        """A tensor's in-place method (`t.normal_()`) writes its receiver; a function of torch
        (`nn.init.normal_(t)`) and any other call its first argument."""
        return method.value if method is not None and not self._is_function(method) else target

    def _is_function(self, func: cst.Attribute) -> bool:
        """`nn.init.normal_`, `torch.nn.init.normal_`: a function of a module, not a tensor's method."""
        resolved = self.interp.index.resolve(func)
        return resolved is not None and resolved.startswith("torch.")

    def _made_here(self, value: cst.BaseExpression | None) -> bool:
        if isinstance(value, cst.Name):
            values = self.body.bound.get(value.value, [])
            if value.value in self.outside or len(values) != 1:
                return False
            value = values[0]
        if not isinstance(value, cst.Call):
            return False
        resolved = self.interp.index.resolve(value.func)
        return resolved is not None and self.interp.knowledge.tensor_factory(resolved) is not None

    def only_own(self) -> bool:
        targets = self.body.targets
        return bool(targets) and all(self._made_here(self._written(*target)) for target in targets)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def _writes_only_its_own_tensors(func: cst.FunctionDef, interp: Interpreter) -> bool:
    """`def uniform_init(*shape): t = torch.empty(shape); nn.init.kaiming_uniform_(t); return t`:
    a factory of new values, named like an init, that cannot reach a weight the model holds."""
    return _OwnTensors(func, interp).only_own()


def uncalled_init_functions(index: ModuleIndex, root: ModuleNode, interp: Interpreter, uses: NameUses) -> list[str]:
    """Init functions of the model that its construction never runs: something else applies them.
    A helper the constructor calls on a part of itself in a branch its arguments turn off
    (`if zero_init: init_zero_(self.out)`) is no such entry point: the constructor chose not to run it.
    Nor is a function of the file that its code calls on a chosen part of a module, of this model
    or another (`zero_init_(self.to_out)` in the file's U-Net): it inits the layers it is handed."""
    names: list[str] = []

    def left_to_others(name: str, func: cst.FunctionDef) -> bool:
        return (
            init_like(name)
            and id(func) not in interp.executed
            and name not in interp.declined_names
            and not _writes_only_its_own_tensors(func, interp)
        )

    classes: dict[int, list[ModuleNode]] = {}
    for _, node in root.named_modules():
        if node.cls is not None:
            classes.setdefault(id(node.cls), []).append(node)
    for nodes in classes.values():
        cls = nodes[0].cls
        assert cls is not None
        holder = Holder(index, cls, tuple(nodes))
        for owner in index.mro(cls):
            for name in owner.methods:
                # A method an override shadows never runs on this module: the override is the init.
                found = index.find_method(cls, name)
                if (
                    found is not None
                    and found[0] is owner
                    and left_to_others(name, found[1])
                    and may_write_weights(found[1], holder)
                ):
                    names.append(f"{owner.name}.{name}")
    for name, func in index.functions.items():
        if left_to_others(name, func) and not uses.applied_to_a_part(name) and may_write_weights(func):
            names.append(name)
    return sorted(set(names))


def unchanged_by_uncalled(interp: Interpreter, root: ModuleNode, uses: NameUses | None = None) -> set[int]:
    """The parameters whose verdict holds if the uncalled inits are applied after all: where each
    is a per-module function (a method of the model, `param_init_fn(self, module)`, or one of the
    file, `init_params(module)`, for a trainer to `apply` to every module), run over every module.
    A parameter's init stays what it is, or, by such a function of the file, is drawn afresh with
    a plain std that has no depth factor either (`normal_(std=0.02)`: recorded in
    `root.redrawn_by_uncalled` for the evidence). So is a method of the model the file never names
    (`uses`): a transformers model whose constructor leaves out `post_init()` leaves its
    `_init_weights` to a loader. A method the file does name keeps the stricter test: that
    caller's analysis answers (the single-file fallback runs the others where it can). A part's
    per-module method (a wrapper holding the GPT whose `_init_weights` no one applies) is run so
    over that part's modules."""
    methods = []
    reached: set[int] = set()  # parameters of the parts whose own uncalled methods may redraw them
    by_parts: list[tuple[FuncRef, str]] = []  # the parts' per-module methods, run over their modules
    by_parts_reach: set[int] = set()
    for qualified in root.uncalled_init:
        owner_name, _, name = qualified.rpartition(".")
        part = _reach_of_part_method(interp, root, owner_name, name) if owner_name else None
        per_module = _per_module_part_method(interp, root, owner_name, name) if part is not None else None
        if part is not None and per_module is not None:
            by_parts.extend((method, qualified) for method in per_module)
            by_parts_reach |= part
            continue
        if part is not None:
            reached |= part
            continue
        if not owner_name:
            # A function of the checked file itself (a model of another file names its own).
            func = interp.index.functions.get(name)
            if (
                root.foreign
                or func is None
                or len(func.params.params) != 1
                or isinstance(func.params.star_arg, cst.Param)
            ):
                return set()
            methods.append((FuncRef(func), qualified))
            continue
        found = interp.index.find_method(root.cls, name) if root.cls is not None else None
        if found is None or found[0].name != owner_name or len(found[1].params.params) != 2:
            return set()
        methods.append((FuncRef(found[1], found[0], ModRef(root)), qualified))
    # A method the file names is applied where it is named: that caller's analysis answers.
    unnamed = (
        bool(methods) and uses is not None and not root.foreign and not uses.is_used(methods[0][1].rpartition(".")[2])
    )
    redraw_holds = len(methods) == 1 and (methods[0][0].owner is None or unnamed)
    held = (
        _unchanged_when_run(interp, root, methods, redraw_holds)
        if methods
        else {id(p) for _, p in root.named_parameters()}
    )
    if by_parts:
        named = uses is not None and uses.is_used(by_parts[0][1].rpartition(".")[2])
        held_by_parts = _unchanged_when_run(interp, root, by_parts, len(by_parts) == 1 and not named and not methods)
        # (A run that could not be followed leaves the parts' parameters to whatever it may do.)
        held = held & held_by_parts if held_by_parts else held - by_parts_reach
    return held - reached


def _reach_of_part_method(interp: Interpreter, root: ModuleNode, owner: str, name: str) -> set[int] | None:
    """The parameters a method of a part's class (`KAN.initialize_from_another_model`, the root
    not of that class) can write when applied: those of the parts of that class, as a module's
    method reaches only itself. None where the root itself is of that class."""
    parts = [
        node
        for _, node in root.named_modules()
        if node.cls is not None and any(cls.name == owner and name in cls.methods for cls in interp.index.mro(node.cls))
    ]
    if not parts or root in parts:
        return None
    return {id(param) for part in parts for _, param in part.named_parameters()}


def _per_module_part_method(interp: Interpreter, root: ModuleNode, owner: str, name: str) -> list[FuncRef] | None:
    """A part's per-module method (`GPT._init_weights(self, module)`, the root holding the GPT),
    bound to each part of its class, to be run over that part's modules as `part.apply(
    part._init_weights)` runs it. None for another kind of method."""
    parts = [node for _, node in root.named_modules() if node is not root and node.cls is not None]
    methods = []
    for part in parts:
        assert part.cls is not None
        found = interp.index.find_method(part.cls, name)
        if found is not None and found[0].name == owner:
            if len(found[1].params.params) != 2 or isinstance(found[1].params.star_arg, cst.Param):
                return None
            methods.append(FuncRef(found[1], found[0], ModRef(part)))
    return methods or None


def _unchanged_when_run(
    interp: Interpreter, root: ModuleNode, methods: list[tuple[FuncRef, str]], redraw_holds: bool
) -> set[int]:
    params = [param for _, param in root.named_parameters()]
    before = {id(param): list(param.ops) for param in params}
    saved = (interp.incomplete, set(interp.executed))
    interp.incomplete = False
    after: dict[int, FinalInit] = {}
    try:
        for method, name in methods:
            ctx = replace(interp.root_context(), via=(f"{name}, if a trainer applies it",))
            # (A part's method reaches that part's modules only.)
            applied_to = method.bound.node if isinstance(method.bound, ModRef) else root
            for node in list(applied_to.post_order()):
                interp.call_function(method, [ModRef(node)], {}, ctx)
        if not interp.incomplete:  # a call it makes could not be followed: it may do anything
            after = {id(param): final_init(param) for param in params}
    except (StepBudgetExceeded, RecursionError):
        after = {}
    finally:
        for param in params:
            param.ops = before[id(param)]
        interp.incomplete, interp.executed = saved
    held: set[int] = set()
    for param in params:
        new = after.get(id(param))
        if new is None:
            continue
        if _same_init(final_init(param), new):
            held.add(id(param))
        elif redraw_holds and _plain_std(new) and _depth_free(final_init(param)):
            held.add(id(param))
            root.redrawn_by_uncalled[id(param)] = (methods[0][1], new)
    return held


def _depth_free(final: FinalInit) -> bool:
    """A certain init whose std depends on nothing but the layer's fans (PyTorch's default,
    `xavier_uniform_`, a plain number): no depth factor before the uncalled init either."""
    std = final.std
    return final.certain and std is not None and all(name in _FANS for name in std.atom_names())


_FANS = frozenset({"fan_in", "fan_out", "fan_avg"})


def _plain_std(final: FinalInit) -> bool:
    """Drawn with a nonzero std that is a plain number (`normal_(std=0.02)`) or depends on the
    layer's fans alone (`xavier_normal_`), nothing after it: no depth factor, whichever stack the
    parameter is in."""
    std = final.std
    return _depth_free(final) and std is not None and std.const != 0 and not _scales(final)


def _same_init(old: FinalInit, new: FinalInit) -> bool:
    """The same outcome as the rules read it: kind, std, certainty, the scales after it, the
    alternatives of an undecided choice (not which call made it)."""
    return (old.kind, old.std, old.certain, old.alternatives, _scales(old)) == (
        new.kind,
        new.std,
        new.certain,
        new.alternatives,
        _scales(new),
    )


def _scales(final: FinalInit) -> list[tuple[str, object]]:
    return [(op.kind, op.std) for op in final.chain if op.kind == "scale"]

"""Building model trees: instantiating classes of the file and library layers.

A mixin of the interpreter (`interp.Interpreter`): running a class's `__init__` creates its
`ModuleNode`; a library layer (`nn.Linear`, HF `Conv1D`, Megatron's parallel linears,
containers) becomes a node whose parameters start with PyTorch's default init.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis import init_ops
from initlint.analysis.abstract import (
    UNKNOWN,
    ClassRef,
    Const,
    Env,
    ExtRef,
    FuncRef,
    InitMethod,
    Lambda,
    Mapping,
    ModRef,
    Opaque,
    ParamRef,
    Seq,
)
from initlint.analysis.index import ClassInfo, ModuleIndex, dotted_name
from initlint.analysis.knowledge import Registry
from initlint.analysis.knowledge.conventions import PER_MODULE_INIT_FUNCTIONS
from initlint.analysis.knowledge.specs import LayerSpec
from initlint.analysis.layers import default_std, layer_type
from initlint.analysis.model import InitOp, ModuleNode, Param
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx


class ModelBuilder:
    """Needs the interpreter's state and its way of calling functions (`interp.Interpreter`)."""

    knowledge: Registry
    index: ModuleIndex
    #: Classes whose `__init__` is running, innermost last (a class that builds itself is not followed).
    building: list[str]
    instantiated: set[str]

    def root_context(self) -> Ctx:
        raise NotImplementedError

    def call_function(self, ref: FuncRef, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx) -> Any:
        raise NotImplementedError

    def call_value(self, callee: Any, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.Call) -> Any:
        raise NotImplementedError

    def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any:
        raise NotImplementedError

    def root_argument(self, param: cst.Param) -> Any:
        """A root's parameter as the model built with its defaults has it: a flag, a class or a
        function (`norm_layer=nn.LayerNorm`) is its default; else a symbol (numbers keep their
        names: depth and widths), remembering a string default, a None default for comparisons,
        or the dataclass it is typed with."""
        symbol = _root_argument(self.index, param)
        if param.default is None or isinstance(param.default, cst.SimpleString):
            return symbol
        value = self.eval(param.default, Env(), self.root_context())
        if isinstance(value, Const) and value.value is None:
            return replace(symbol, compared=value)
        if isinstance(value, Const) and isinstance(value.value, bool) or isinstance(value, _CALLABLES):
            return value
        return symbol

    def build_root(self, cls: ClassInfo) -> ModuleNode:
        built: ModRef = self.instantiate(cls, [], {}, cls.node, self.root_context(), root=True)
        return built.node

    def build_function_root(self, func: cst.FunctionDef) -> ModuleNode | None:
        """A module-level builder no code of the file calls (`def mlp_mixer(dim=512, depth=12):
        return nn.Sequential(...)`): run with its parameters as symbols, as a root's `__init__` is.
        A model of library containers it returns is a root; a class of the file is one already."""
        args = [self.root_argument(p) for p in func.params.params]
        ctx = replace(self.root_context(), via=(f"{func.name.value}()",))
        built = self.call_function(FuncRef(func), args, {}, ctx)
        if (
            isinstance(built, ModRef)
            and built.node.cls is None
            and built.node.parent is None
            and built.node.kind in ("container", "sequential")
        ):
            return built.node
        return None

    def run_entry_point(self, root: ModuleNode, module: cst.Module, executed: set[int]) -> None:
        """A library model whose init is a method its user calls after construction: where this
        file never calls it, run it as that user would, with its own defaults, and say so."""
        if root.cls is None:
            return
        for name in self.knowledge.explicit_init_entry_points():
            found = self.index.find_method(root.cls, name)
            if found is None or id(found[1]) in executed or _used_in(module, name):
                continue
            owner, func = found
            per_module = name in PER_MODULE_INIT_FUNCTIONS
            if per_module and self.index.is_hf_pretrained(root.cls):
                continue  # transformers applies it from `post_init()`, or the model opted out
            method = FuncRef(func, owner, ModRef(root))
            call = f"model.apply(model.{name})" if per_module else f"{name}()"
            why = f"{owner.name}.{name}, assuming `{call}` is called, as no caller is in this file"
            ctx = replace(self.root_context(), via=(why,))
            for node in list(root.post_order()) if per_module else [None]:
                self.call_function(method, [ModRef(node)] if node is not None else [], {}, ctx)
            return

    def instantiate(
        self, cls: ClassInfo, args: list[Any], kwargs: dict[Any, Any], call: cst.CSTNode, ctx: Ctx, root: bool = False
    ) -> Any:
        if cls.name in self.building or len(self.building) > 16:
            return UNKNOWN
        if not root:
            self.instantiated.add(cls.name)
        node = ModuleNode(
            name="", kind="module", type_name=cls.name, cls=cls, created_at=call, built_certain=ctx.certain
        )
        for base in self.index.base_chain(cls):
            if base not in self.index.classes:
                known = layer_type(self.knowledge, base)
                if known is not None and known.kind not in ("container", "sequential"):
                    node.kind = known.kind
                    self.add_default_params(node, known, {}, ctx)
                    break
        found = self.index.find_method(cls, "__init__")
        if found is not None:
            owner, func = found
            self.building.append(cls.name)
            try:
                if root:
                    args = [self.root_argument(p) for p in func.params.params[1:]]
                self.call_function(
                    FuncRef(func, owner, ModRef(node)),
                    args,
                    kwargs,
                    replace(ctx, via=ctx.via + (f"{cls.name}.__init__",)),
                )
            finally:
                self.building.pop()
        return ModRef(node)

    def _build_wrapped(
        self, node: ModuleNode, how: tuple[str, str, str], kwargs: dict[Any, Any], ctx: Ctx, call: cst.Call
    ) -> None:
        """A wrapper that builds its child (`builds_child` in the registry): the child is what the
        builder returns for those arguments; a builder or arguments we cannot see build nothing."""
        name, builder_keyword, kwargs_keyword = how
        builder, arguments = kwargs.get(builder_keyword), kwargs.get(kwargs_keyword)
        if builder is None or not isinstance(arguments, Mapping):
            return
        built = self.call_value(builder, [], {str(k): v for k, v in arguments.items.items()}, ctx, call)
        if isinstance(built, ModRef) and built.node.parent is None:
            node.add_child(name, built.node)

    def add_default_params(self, node: ModuleNode, known: LayerSpec, kwargs: dict[Any, Any], ctx: Ctx) -> None:
        for default in known.params:
            pname, kind = default.name, default.kind
            if pname == "bias" and isinstance(kwargs.get("bias"), Const) and kwargs["bias"].value is False:
                continue
            param = node.params.setdefault(pname, Param(pname, node, ndim=default.ndim))
            via = (f"PyTorch's default init for {known.class_name}",)
            param.ops.append(
                InitOp(kind, default_std(default), None, via, True, init_ops.default_label(kind, known.class_name))
            )

    def construct_layer(
        self, qualified: str, known: LayerSpec | None, args: list[Any], kwargs: dict[Any, Any], call: cst.Call, ctx: Ctx
    ) -> ModRef:
        kind = known.kind if known else "unknown"
        node = ModuleNode(name="", kind=kind, type_name=qualified, created_at=call)
        if known is None:
            return ModRef(node)
        if kind in ("container", "sequential"):
            _add_container_children(node, kind, args)
            return ModRef(node)
        if known.builds_child is not None:
            self._build_wrapped(node, known.builds_child, kwargs, ctx, call)
            return ModRef(node)
        self.add_default_params(node, known, kwargs, ctx)
        self._add_sublayers(node, known, call, ctx)
        if known.init_from_argument:
            self._init_from_argument(node, known, known.init_from_argument, kwargs, call, ctx)
        return ModRef(node)

    def _add_sublayers(self, node: ModuleNode, known: LayerSpec, call: cst.Call, ctx: Ctx) -> None:
        """The library layers a layer creates inside itself (`known.sublayers`), each with its
        own default init: the user's code never builds them, so nothing else would."""
        for name, class_name in known.sublayers:
            sublayer = layer_type(self.knowledge, class_name)
            if sublayer is not None:
                child = node.add_child(
                    name, ModuleNode(name=name, kind=sublayer.kind, type_name=class_name, created_at=call)
                )
                self.add_default_params(child, sublayer, {}, ctx)

    def _init_from_argument(
        self, node: ModuleNode, known: LayerSpec, keyword: str, kwargs: dict[Any, Any], call: cst.Call, ctx: Ctx
    ) -> None:
        """A layer that initialises its weight with a function it is given (`keyword=`): run that
        function on the weight; one we cannot follow leaves the weight's init unknown."""
        weight = node.params.setdefault("weight", Param("weight", node, ndim=2))
        method = kwargs.get(keyword, UNKNOWN)
        label = f"{keyword}= of {known.class_name}"
        if isinstance(method, (FuncRef, Lambda, InitMethod)):
            # What it records stands: `lambda x: x` leaves the weight as torch.empty left it.
            self.call_value(method, [ParamRef(weight)], {}, replace(ctx, via=ctx.via + (label,)), call)
        else:
            weight.ops.append(InitOp("unknown", None, call, ctx.via + (label,), False, label))


def _container_items(kind: str, args: list[Any]) -> tuple[list[tuple[str, Any]], Monomial | None]:
    """A container's (key, value) entries, and the repeat count of a list built by a comprehension
    (`nn.ModuleList([Block() for _ in range(n)])`, one representative entry). `nn.Sequential(a, b)`
    holds its arguments; a single list or mapping argument holds its entries."""
    source = args[0] if args else None
    # `nn.Sequential` takes its layers as arguments, unless it is given one list or mapping of them.
    if kind == "sequential" and (len(args) != 1 or not isinstance(source, (Seq, Mapping))):
        return [(str(i), value) for i, value in enumerate(args)], None
    if isinstance(source, Seq):
        return [(str(i), value) for i, value in enumerate(source.items)], source.repeat
    if isinstance(source, Mapping):
        return [(str(key), value) for key, value in source.items.items()], None
    return [], None


def _add_container_children(node: ModuleNode, kind: str, args: list[Any]) -> None:
    """The modules a container holds become its children, each remembering how often it repeats."""
    items, repeat = _container_items(kind, args)
    for key, value in items:
        count = repeat
        if isinstance(value, Seq) and value.repeat is not None and value.items and kind == "sequential":
            # `nn.Sequential(stem, *[Block(...) for _ in range(depth)], head)`: one representative.
            value, count = value.items[0], value.repeat
        if isinstance(value, ModRef):
            child = node.add_child(key, value.node)
            child.repeat = count or child.repeat


#: Defaults a root's parameter is built with: classes and functions (`act_layer=nn.GELU`).
_CALLABLES = (ClassRef, FuncRef, ExtRef, Lambda)


def _root_argument(index: ModuleIndex, param: cst.Param) -> Opaque:
    """A root's parameter: a symbol, remembering a string default or the dataclass it is typed with."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    name = dotted_name(annotation) if annotation is not None else None
    cls = index.class_named(name) if name is not None else None
    fields = cls if cls is not None and _is_dataclass(cls) else None
    return Opaque(param.name.value, _string_default(param), fields)


def _is_dataclass(cls: ClassInfo) -> bool:
    for decorator in cls.node.decorators:
        target = decorator.decorator
        target = target.func if isinstance(target, cst.Call) else target
        name = (
            target.attr.value
            if isinstance(target, cst.Attribute)
            else target.value
            if isinstance(target, cst.Name)
            else ""
        )
        if name == "dataclass":
            return True
    return False


def _string_default(param: cst.Param) -> str | None:
    default = param.default
    value = default.evaluated_value if isinstance(default, cst.SimpleString) else None
    return value if isinstance(value, str) else None


class _UseFinder(cst.CSTVisitor):
    """Whether `name` is called or passed on (`model.apply(model._init_weights)`) outside methods
    of that same name (which delegate to the children's entry points: not callers of the model's)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node.name.value != self.name and not self.found

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found = self.found or node.attr.value == self.name

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name


class _NameReader(cst.CSTVisitor):
    """Every name the module reads, apart from the names functions are defined under."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._definitions: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._definitions.add(id(node.name))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._definitions:
            self.names.add(node.value)


def names_read(module: cst.Module) -> set[str]:
    reader = _NameReader()
    module.visit(reader)
    return reader.names


def _used_in(module: cst.Module, name: str) -> bool:
    finder = _UseFinder(name)
    module.visit(finder)
    return finder.found

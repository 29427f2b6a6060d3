"""Building model trees: instantiating classes of the file and library layers.

A mixin of the interpreter (`interp.Interpreter`): running a class's `__init__` creates its
`ModuleNode`; a library layer (`nn.Linear`, HF `Conv1D`, Megatron's parallel linears,
containers) becomes a node whose parameters start with PyTorch's default init.
"""

from __future__ import annotations

import functools

from pathlib import Path

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

import libcst as cst

from initlint.analysis.usage import NameUses
from initlint.analysis import init_ops
from initlint.analysis.abstract import (
    UNKNOWN,
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
    ParamRef,
    Seq,
    as_number,
    truth,
)
from initlint.analysis.factories import factory_ref
from initlint.analysis.index import ClassInfo, ModuleIndex, dotted_name
from initlint.analysis.knowledge import Registry
from initlint.analysis.knowledge.conventions import PER_MODULE_INIT_FUNCTIONS
from initlint.analysis.knowledge.specs import BlockStack, BuiltStack, LayerSpec, StreamConnection
from initlint.analysis.layers import default_std, layer_type
from initlint.analysis.model import InitOp, ModuleNode, Param
from initlint.analysis.root_parameters import dataclass_fields, is_dataclass, root_parameter, type_arguments
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
    #: Calls whose every path raised on a path that always runs.
    certain_raises: int
    #: The root's parameters a preset sets, by name (`interp.Interpreter.preset_flags`).
    preset_flags: dict[str, Any]

    def root_context(self) -> Ctx:
        raise NotImplementedError

    def mark_unknown_targets(
        self, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.CSTNode, why: str
    ) -> None:
        raise NotImplementedError

    def call_function(self, ref: FuncRef, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx) -> Any:
        raise NotImplementedError

    def call_value(self, callee: Any, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx, call: cst.Call) -> Any:
        raise NotImplementedError

    def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any:
        raise NotImplementedError

    def root_argument(
        self,
        param: cst.Param,
        ctx: Ctx | None = None,
        typed: ClassInfo | None = None,
        bound: dict[str, ClassInfo] | None = None,
    ) -> Any:
        """A root's parameter as the model built with its defaults has it: a flag, a class or a
        function (`norm_layer=nn.LayerNorm`) is its default, and so is a module-level helper
        object that is no module (`strategy=LOCAL` where `LOCAL = StayLocal()`: the model calls
        its methods, whose code can be read); else a symbol (numbers keep their names: depth and
        widths), remembering a string default, a None default for comparisons, or the dataclass
        it is typed with (its annotation, else `typed`: what the model's loaders hand over)."""
        if param.name.value in self.preset_flags:
            return self.preset_flags[param.name.value]
        part = self._typed_part(param, ctx) if param.default is None else None
        if part is not None:
            return part
        symbol = root_parameter(self.index, param, typed, bound)
        if param.default is None or isinstance(param.default, cst.SimpleString):
            return symbol
        built_before = set(self.instantiated)
        value = self.eval(param.default, Env(), ctx or self.root_context())
        if isinstance(value, ModRef):
            cls = value.node.cls
            named = isinstance(param.default, (cst.Name, cst.Attribute))  # not `Config()`: its fields stay symbols
            if named and cls is not None and not self.index.is_module_class(cls):
                return value
            # A module default (`norm=DEFAULT_NORM`) stays a symbol, and its class may still be a root.
            self.instantiated.intersection_update(built_before)
            return symbol
        if isinstance(value, Const) and value.value is None:
            return replace(symbol, compared=value)
        if isinstance(value, Const) and isinstance(value.value, bool) or isinstance(value, _CALLABLES):
            return value
        if (
            isinstance(value, Seq)
            and value.repeat is None
            and value.items
            and all(isinstance(item, Seq) for item in value.items)
        ):
            return replace(symbol, entries=tuple(value.items))  # settings, a tuple per layer or stage
        if isinstance(value, Const) and value.value == ():
            # The layers picked out for something else (`moe_layers=()`): none, as the model built
            # with its defaults has it.
            return value
        return symbol

    def _typed_part(self, param: cst.Param, ctx: Ctx | None) -> ModRef | None:
        """A part a root is handed, typed with a module class of the code (`layer: Layer`,
        `self_attn: MultiHeadAttention`): the caller builds one of that class, read here with
        its own defaults (its own typed parts built alike). Only a plain annotation is read, not
        a union as `root_parameters.annotated_class` reads a config's: `encoder: Encoder | dict`
        says the code may build the part itself from a dict, which a built part would hide."""
        annotation = param.annotation.annotation if param.annotation is not None else None
        name = dotted_name(annotation) if annotation is not None else None
        cls = self.index.class_named(name) if name is not None else None
        if cls is None or not self.index.is_module_class(cls):
            return None
        built = self.instantiate(cls, [], {}, param, ctx or self.root_context(), root=True)
        if not isinstance(built, ModRef):
            return None
        built.node.handed_in = True
        return built

    def build_root(self, cls: ClassInfo) -> ModuleNode:
        built: ModRef = self.instantiate(cls, [], {}, cls.node, self.root_context(), root=True)
        return built.node

    def build_function_root(self, func: cst.FunctionDef, own_class: bool = False) -> ModuleNode | None:
        """A module-level builder no code of the file calls (`def mlp_mixer(dim=512, depth=12):
        return nn.Sequential(...)`): run with its parameters as symbols, as a root's `__init__` is.
        A model of library containers it returns is a root; a class of the file is one already. So
        is a class of another project file (`return Decoder(layers=...)`): its constructor holds
        the layers the builder made here, which that file's own model never sees. With
        `own_class`, a class of the file it returns is kept too (the model a preset builds)."""
        args = [self.root_argument(p) for p in func.params.params]
        kwargs = {p.name.value: self.root_argument(p) for p in func.params.kwonly_params}
        ctx = replace(self.root_context(), via=(f"{func.name.value}()",))
        built = self.call_function(FuncRef(func), args, kwargs, ctx)
        if not isinstance(built, ModRef) or built.node.parent is not None:
            return None
        if built.node.cls is None and built.node.kind in ("container", "sequential"):
            return built.node
        if built.node.cls is not None and (own_class or not self.defined_here(built.node.cls)):
            return built.node
        return None

    def has_factory(self, cls: ClassInfo) -> bool:
        return any(factory_ref(cls, func) is not None for func in cls.methods.values())

    def build_factory_root(self, cls: ClassInfo) -> ModuleNode | None:
        """A class whose `__init__` is handed its parts, assembled by a factory of its own
        (`@classmethod def from_config(cls, config): layers = nn.ModuleList([...]); return
        cls(embed, layers)`): the first such factory's model of the class, its parameters symbols
        as a root's are. A factory handing back anything else (a loaded model) is none."""
        for func in cls.methods.values():
            ref = factory_ref(cls, func)
            if ref is None:
                continue
            params = func.params.params[1 if ref.bound is not None else 0 :]
            args = [self.root_argument(p) for p in params]
            kwargs = {p.name.value: self.root_argument(p) for p in func.params.kwonly_params}
            ctx = replace(self.root_context(), via=(f"{cls.name}.{func.name.value}()",))
            built_before = cls.name in self.instantiated
            built = self.call_function(ref, args, kwargs, ctx)
            if not built_before:
                self.instantiated.discard(cls.name)  # the model itself, no part of another
            if isinstance(built, ModRef) and built.node.parent is None and built.node.cls is cls:
                return built.node
        return None

    def defined_here(self, cls: ClassInfo) -> bool:
        """Whether a class is the checked file's (every class is, without a project)."""
        return True

    def source_path(self, cls: ClassInfo) -> Path | None:
        """The file a class of the code is read from, where a project places it."""
        return None

    def aliased_layer(self, cls: ClassInfo) -> LayerSpec | None:
        """The known layer a class of the code stands for by `extend-layer-classes`: named by the
        dotted name an import of it would use (`gpt2.Conv1D`, matched against its file where the
        project places it), or by the class name alone."""
        for user_class, known in self.knowledge.layer_aliases:
            module, _, name = user_class.rpartition(".")
            if name == cls.name and (not module or _names_file(module, self.source_path(cls))):
                return self.knowledge.layer(known)
        return None

    def run_entry_point(self, root: ModuleNode, uses: NameUses, executed: set[int]) -> None:
        """A library model whose init is a method its user calls after construction: where this
        file never calls it, run it as that user would, with its own defaults, and say so. A
        method by such a name that initialises nothing (a `post_init()` that only ties the head)
        is not the init: the next one is tried."""
        if root.cls is None:
            return
        recorded = _ops_recorded(root)
        for name in self.knowledge.explicit_init_entry_points():
            found = self.index.find_method(root.cls, name)
            if found is None or id(found[1]) in executed or uses.is_used(name):
                continue
            owner, func = found
            per_module = name in PER_MODULE_INIT_FUNCTIONS
            if per_module and self.index.is_hf_pretrained(root.cls):
                continue  # transformers applies it from `post_init()`, or the model opted out
            method = FuncRef(func, owner, ModRef(root))
            call = f"model.apply(model.{name})" if per_module else f"{name}()"
            why = f"{owner.name}.{name}, assuming `{call}` is called, as no caller is in this file"
            ctx = replace(self.root_context(), via=(why,))
            raised = self.certain_raises
            for node in list(root.post_order()) if per_module else [None]:
                self.call_function(method, [ModRef(node)] if node is not None else [], {}, ctx)
            if self.certain_raises != raised:
                # The init raises as this model is built (a layer type it has no rule for): the
                # parameters it had not reached are left as nothing we could know.
                self.mark_unknown_targets([ModRef(root)], {}, ctx, func.name, "the init raises before the end")
                return
            if _ops_recorded(root) != recorded:
                return

    def run_lazy_inits(self, root: ModuleNode) -> None:
        """An init method a module's `forward` calls on itself (`if not self._ready:
        self.init_buffers()`, or `self.init_from(x)` filling buffers from the first batch) may
        run at the first forward, after any init entry point: run it once per module after
        those, on a path that may not be taken (its guard is not read), with the values the
        forward hands it unknown."""
        for node in list(root.post_order()):
            forward = self.index.find_method(node.cls, "forward") if node.cls is not None else None
            if node.cls is None or forward is None:
                continue
            for name, positional, keywords in _own_calls(forward[1]):
                found = self.index.find_method(node.cls, name)
                if found is None or not init_like(name):
                    continue
                owner, func = found
                ctx = replace(self.root_context(), certain=False, via=(f"{owner.name}.{name}, called by forward",))
                given = {keyword: UNKNOWN for keyword in keywords}
                self.call_function(FuncRef(func, owner, ModRef(node)), [UNKNOWN] * positional, given, ctx)

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
                # A subclass of a library block or stack has a `forward` and an `__init__` of its
                # own to read, not the library's.
                if known is not None and known.kind not in ("container", "sequential", "block", "stack"):
                    node.kind = known.kind
                    self.add_default_params(node, known, {}, ctx)
                    break
        aliased = self.aliased_layer(cls)
        if aliased is not None and aliased.kind not in ("container", "sequential", "block", "stack"):
            # Its own `__init__`, read below, gives its parameters; the user says what kind it is.
            node.kind = aliased.kind
        found = self.index.find_method(cls, "__init__")
        if found is not None:
            owner, func = found
            self.building.append(cls.name)
            try:
                if root:
                    typed, bound = self.init_argument_type(cls), type_arguments(self.index, cls, owner)
                    params = func.params.params[1:]
                    args = [self.root_argument(p, ctx, typed if i == 0 else None, bound) for i, p in enumerate(params)]
                    # Keyword-only sizes (`def __init__(self, *, dim, depth=8)`) are symbols too.
                    kwargs = {p.name.value: self.root_argument(p, ctx, None, bound) for p in func.params.kwonly_params}
                self.call_function(
                    FuncRef(func, owner, ModRef(node)),
                    args,
                    kwargs,
                    replace(ctx.constructing(node), via=ctx.via + (f"{cls.name}.__init__",)),
                )
            finally:
                self.building.pop()
            if self.borrows_list_class(node):
                node.kind = "module"
        elif is_dataclass(self.index, cls):
            self.init_dataclass(cls, node, args, kwargs, ctx)
        else:
            # No `__init__` of its own: a subclass of `nn.Sequential` is built by the library's.
            self.init_library_container(node, args, kwargs)
        return ModRef(node)

    def init_dataclass(
        self, cls: ClassInfo, node: ModuleNode, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx
    ) -> None:
        """The `__init__` a dataclass decorator writes: it stores the fields given, then calls
        `__post_init__`, so the fields that derives (`self.n_routed = self.alpha * self.n_experts`)
        hold what it stores, whatever placeholder their declaration names."""
        _store_dataclass_fields(node, dataclass_fields(self.index, self.index.mro(cls)), args, kwargs)
        found = self.index.find_method(cls, "__post_init__")
        if found is None:
            return
        owner, func = found
        via = replace(ctx.constructing(node), via=ctx.via + (f"{owner.name}.__post_init__",))
        self.call_function(FuncRef(func, owner, ModRef(node)), [], {}, via)

    def init_argument_type(self, cls: ClassInfo) -> ClassInfo | None:
        """The config class a library model's loaders build it from (`config_class = XConfig` on
        a `PreTrainedModel`: `from_pretrained` calls `cls(config)`), found on the class or a base."""
        attribute = self.knowledge.init_argument_type(self.index.base_chain(cls))
        for owner in self.index.mro(cls) if attribute is not None else ():
            name = dotted_name(owner.attributes[attribute]) if attribute in owner.attributes else None
            if name is not None:
                return self.index.class_named(name)
        return None

    def borrows_list_class(self, node: ModuleNode) -> bool:
        """A subclass of `nn.ModuleList` that holds no entries once built (`super().__init__()`
        given no layers, nothing appended) and has a `forward` of its own only borrows the base
        class: its parts are its attributes, and calling it runs its `forward` (ModuleList has
        none), as for any module."""
        if node.kind != "container" or node.cls is None or any(key.isdigit() for key in node.children):
            return False
        if self.index.find_method(node.cls, "forward") is None:
            return False
        library = [base for base in self.index.base_chain(node.cls) if base not in self.index.classes]
        return any((known := layer_type(self.knowledge, base)) and known.class_name == "ModuleList" for base in library)

    def init_library_container(self, node: ModuleNode, args: list[Any], kwargs: dict[Any, Any]) -> None:
        """`nn.Sequential.__init__(*layers)` (or `nn.ModuleList`'s) on a subclass, by `super()` or
        inherited: the library's constructor registers the layers as the module's children, as it
        does when the container is built directly; the module iterates them as that container does."""
        if node.cls is None or node.children:
            return
        for base in self.index.base_chain(node.cls):
            known = layer_type(self.knowledge, base) if base not in self.index.classes else None
            if known is not None and known.kind in ("container", "sequential"):
                node.kind = known.kind
                add_container_children(node, known.kind, container_arguments(known, args, kwargs))
                return

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

    def add_default_params(
        self, node: ModuleNode, known: LayerSpec, kwargs: dict[Any, Any], ctx: Ctx, certain: bool = True
    ) -> None:
        for default in known.params:
            pname, kind = default.name, default.kind
            if pname == "bias" and isinstance(kwargs.get("bias"), Const) and kwargs["bias"].value is False:
                continue
            param = node.params.setdefault(pname, Param(pname, node, ndim=default.ndim, dims=default.dims))
            via = (f"PyTorch's default init for {known.class_name}",)
            param.ops.append(
                InitOp(kind, default_std(default), None, via, certain, init_ops.default_label(kind, known.class_name))
            )

    def construct_layer(
        self, qualified: str, known: LayerSpec | None, args: list[Any], kwargs: dict[Any, Any], call: cst.Call, ctx: Ctx
    ) -> ModRef:
        kind = known.kind if known else "unknown"
        node = ModuleNode(name="", kind=kind, type_name=qualified, created_at=call)
        ctx.note_built(node)
        if known is None:
            return ModRef(node)
        if kind in ("container", "sequential"):
            args = container_arguments(known, args, kwargs)
            kept = [a for a in args if not (known.drops_none and isinstance(a, Const) and a.value is None)]
            add_container_children(node, kind, kept)
            return ModRef(node)
        if known.builds_child is not None:
            self._build_wrapped(node, known.builds_child, kwargs, ctx, call)
            return ModRef(node)
        if known.stack is not None:
            _stack_blocks(node, known.stack, args, kwargs, call)
            return ModRef(node)
        if known.builds:
            self._build_stacks(node, known, args, kwargs, call, ctx)
            return ModRef(node)
        self.add_default_params(node, known, kwargs, ctx)
        self._add_sublayers(node, known, call, ctx)
        if known.residual is not None:
            # Kept as the attribute of that name, which the block's own `forward` reads.
            switch = known.residual.prenorm
            node.attrs[switch.keywords[0]] = init_ops.argument(switch, args, kwargs)
        if known.connection is not None:
            _connect_branch(node, known.connection, kwargs)
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
                self._add_sublayers(child, sublayer, call, ctx)

    def _build_stacks(
        self, node: ModuleNode, known: LayerSpec, args: list[Any], kwargs: dict[Any, Any], call: cst.Call, ctx: Ctx
    ) -> None:
        """A model that builds its stacks from its own arguments (`nn.Transformer`), then gives
        every matrix its `matrix_init`, as its constructor does last."""
        for built in known.builds:
            given = init_ops.argument(built.replaced_by, args, kwargs) if built.replaced_by else Const(None)
            stack = self._built_stack(built, args, kwargs, call, ctx) if truth(given) is False else given
            if isinstance(stack, ModRef) and stack.node.parent is None:
                node.add_child(built.child, stack.node)
        if known.matrix_init is not None:
            inner = replace(ctx, via=ctx.via + (f"{known.class_name}.__init__",))
            for _, param in node.named_parameters():
                if param.ndim is not None and param.ndim > 1:
                    self.call_value(ExtRef(known.matrix_init), [ParamRef(param)], {}, inner, call)

    def _built_stack(
        self, built: BuiltStack, args: list[Any], kwargs: dict[Any, Any], call: cst.Call, ctx: Ctx
    ) -> ModRef | None:
        """One stack of `_build_stacks`: its block built with the model's pre-norm switch."""
        block_spec, stack_spec = (
            layer_type(self.knowledge, built.block_class),
            layer_type(self.knowledge, built.stack_class),
        )
        if block_spec is None or stack_spec is None or block_spec.residual is None:
            return None
        switch = {block_spec.residual.prenorm.keywords[0]: init_ops.argument(built.prenorm, args, kwargs)}
        block = self.construct_layer(built.block_class, block_spec, [], switch, call, ctx)
        depth = init_ops.argument(built.depth, args, kwargs)
        norm = []
        if built.norm_class is not None:
            norm_spec = layer_type(self.knowledge, built.norm_class)
            norm.append(self.construct_layer(built.norm_class, norm_spec, [], {}, call, ctx))
        return self.construct_layer(built.stack_class, stack_spec, [block, depth, *norm], {}, call, ctx)

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


def _connect_branch(node: ModuleNode, connection: StreamConnection, kwargs: dict[Any, Any]) -> None:
    """A stream connection keeps the branch it is built around as its child, and its add switch
    as the attribute its `forward` reads."""
    branch = kwargs.get(connection.branch)
    if isinstance(branch, ModRef) and branch.node.parent is None:
        node.add_child(connection.branch, branch.node)
    node.attrs[connection.adds] = kwargs.get(connection.adds, Const(True))


def _stack_blocks(node: ModuleNode, stack: BlockStack, args: list[Any], kwargs: dict[Any, Any], call: cst.Call) -> None:
    """`nn.TransformerEncoder(layer, n)`: n deep copies of `layer` in a ModuleList, with `layer`
    as their representative. A layer registered elsewhere already (`self.layer`) is an instance
    of its own beside the copies: the stack then holds none we model."""
    container = node.add_child(
        stack.container, ModuleNode(stack.container, "container", "torch.nn.ModuleList", created_at=call)
    )
    block = init_ops.argument(stack.block, args, kwargs)
    depth = as_number(init_ops.argument(stack.depth, args, kwargs))
    if isinstance(block, ModRef) and block.node.parent is None and depth is not None:
        container.add_child("0", block.node).repeat = depth
    norm = init_ops.argument(stack.norm, args, kwargs) if stack.norm is not None else None
    if isinstance(norm, ModRef) and norm.node.parent is None:
        node.add_child(stack.norm_child, norm.node)


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
        return [(str(key), value) for key, value in source.items.items()], source.repeat
    return [], None


def container_arguments(known: LayerSpec, args: list[Any], kwargs: dict[Any, Any]) -> list[Any]:
    """A container's entries given by keyword (`nn.ModuleList(modules=layers)`) as its argument."""
    keyword = known.entries_keyword
    return [kwargs[keyword]] if not args and keyword is not None and keyword in kwargs else args


def add_container_children(node: ModuleNode, kind: str, args: list[Any]) -> None:
    """The modules a container holds become its children, each remembering how often it repeats."""
    source = args[0].node if len(args) == 1 and isinstance(args[0], ModRef) else None
    if kind == "container" and source is not None and source.kind in ("container", "sequential"):
        # `nn.ModuleList(layers)` of a list built and filled locally: the same modules, moved over.
        if source.parent is None:
            for key, child in source.members():
                (node.add_child if key in source.children else node.add_alternative)(key, child)
            node.slots = source.slots
        return
    items, repeat = _container_items(kind, args)
    entries: list[tuple[Any, Monomial | None]] = []
    for _, value in items:
        if isinstance(value, Seq) and value.repeat is not None and kind == "sequential":
            # `nn.Sequential(stem, *[Block(...) for _ in range(depth)], head)`: one representative
            # of each kind a pass of the loop appended (`layers.append(attn); layers.append(ff)`).
            entries.extend((item, value.repeat) for item in value.items)
        else:
            entries.append((value, repeat))
    for position, (value, count) in enumerate(entries):
        key = str(position) if len(entries) != len(items) else items[position][0]
        if isinstance(value, ModRef):
            for child in (node.add_child(key, value.node), *(node.add_alternative(key, o) for o in value.others)):
                child.repeat = count or child.repeat
    if kind == "container" and repeat is None and args and isinstance(args[0], Seq):
        node.slots = len(items)


#: Defaults a root's parameter is built with: classes and functions (`act_layer=nn.GELU`).
_CALLABLES = (ClassRef, FuncRef, ExtRef, ExtPartial, Lambda)


def _store_dataclass_fields(node: ModuleNode, fields: list[str], args: list[Any], kwargs: dict[Any, Any]) -> None:
    """The `__init__` a dataclass decorator writes: each field given in the call is stored on
    the instance (a base's fields first, positional arguments in declaration order); a field left
    out keeps its class-level default."""
    given = dict(zip(fields, args))
    given.update((key, value) for key, value in kwargs.items() if key in fields)
    node.attrs.update(given)


@functools.lru_cache(maxsize=512)  # asked each time the `if` runs
def chooses_child(choice: cst.If) -> bool:
    """`if flag: self.encoder = StableEncoder(config) else: self.encoder = Encoder(config)`: both
    arms of a plain `if`/`else` build a module under the same attribute, at their top level."""
    if not isinstance(choice.orelse, cst.Else):
        return False
    return bool(_attributes_built(choice.body.body).keys() & _attributes_built(choice.orelse.body.body).keys())


def classes_built_declined(choice: cst.If, decided: bool) -> set[str]:
    """The plain names called to build the children the decision of a child-choosing `if` leaves
    out (`Encoder(config)`, and `Block` in `nn.ModuleList([Block(...) for ...])`)."""
    declined = choice.orelse.body.body if decided and isinstance(choice.orelse, cst.Else) else choice.body.body
    finder = _CalledNames()
    for value in _attributes_built(declined).values():
        value.visit(finder)
    return finder.names


class _CalledNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.names.add(node.func.value)


def _attributes_built(statements: Sequence[cst.CSTNode]) -> dict[str, cst.Call]:
    """The attributes `obj.name = Something(...)` statements at the top of a block assign, with
    the call that builds each."""
    built = {}
    for statement in statements:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call):
                continue
            target = small.targets[0].target
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                built[target.attr.value] = small.value
    return built


def init_like(name: str) -> bool:
    """A method name that says it initialises something (`_init_weights`, `reset_parameters`)."""
    # Dunders (`__init__`, `__init_subclass__` of a base read from a sibling file) are Python's
    # protocol, not weight inits someone else applies.
    if name.startswith("__") and name.endswith("__"):
        return False
    lowered = name.lower()
    return "init" in lowered or lowered.startswith("reset_param")


def callee_name(func: cst.BaseExpression) -> str:
    """The name a call goes by: `init_zero_` in `init_zero_(x)` and in `self.init_zero_(x)`; ""
    for a callee with none (`fns[0](x)`)."""
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""


def may_init(name: str) -> bool:
    """A callee named like an init or an in-place tensor op (`fill_`, `nn.init.normal_`)."""
    return name.endswith("_") or init_like(name)


def own_init(func: cst.BaseExpression) -> str | None:
    """The init method of its own a call runs (`self._normal_init()`), by its name."""
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        return func.attr.value if init_like(func.attr.value) else None
    return None


class _OwnCalls(cst.CSTVisitor):
    """`self.name(...)` calls outside nested functions: each name with the keywords of the
    call and how many values it passes by position (calls that spread arguments are left out)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, tuple[str, ...]]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and not any(arg.star for arg in node.args)
        ):
            keywords = tuple(arg.keyword.value for arg in node.args if arg.keyword is not None)
            self.calls.append((func.attr.value, len(node.args) - len(keywords), keywords))


@functools.lru_cache(maxsize=512)  # a LibCST walk of a whole `forward`, asked per module of every root
def _own_calls(func: cst.FunctionDef) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    finder = _OwnCalls()
    func.body.visit(finder)
    return tuple(dict.fromkeys(finder.calls))


def _ops_recorded(root: ModuleNode) -> int:
    """How many init operations the model's parameters have recorded so far."""
    return sum(len(param.ops) for _, param in root.named_parameters())


def _names_file(module: str, path: Path | None) -> bool:
    """Whether a dotted module name (`models.gpt2`) ends in the file's own (`src/models/gpt2.py`;
    a package's `__init__.py` is the package). A file no project places cannot be told apart."""
    if path is None:
        return True
    parts = path.with_suffix("").parts
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    wanted = tuple(module.split("."))
    return parts[-len(wanted) :] == wanted

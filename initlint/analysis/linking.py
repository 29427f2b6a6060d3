"""Following the checked file's names into its project on disk (`initlint.project`).

A class, function or constant the checked file imports from a sibling file is interpreted as if
it were defined locally, but each piece of code is read with the names of the module it is
written in: while the interpreter runs a sibling's code its index is that sibling's
(`LinkedIndex`), and class questions (methods, bases) go to the module that defines the class,
across files. An init entry point the constructor never runs (`model.init_weights()`,
`model.apply(partial(model._init_weights, n_layer=...))`) is run as the project's callers run
it, with their arguments.

Findings stay in the checked file: a node of a sibling file is reported at the checked file's
code through which the analysis reached that sibling's definition (`Linker.anchor`), and its
own file and line go into the evidence (`Linker.place`); a finding that belongs to a sibling's
code (`Violation.owner`: INI001's writer, built there) is that sibling's, reported when it is
checked, with the models of the files that stack its blocks (`stacking_files`). Whatever cannot be resolved stays an
external name, as an unresolved import always was: the analysis stays silent there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, ClassRef, Const, Env, ExtRef, FuncRef, ModRef, Num, Opaque, Registry
from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.interp import Ctx, Interpreter
from initlint.analysis.knowledge import REGISTRY
from initlint.analysis.knowledge.conventions import DEPTH_NAMES
from initlint.analysis.model import InitOp, ModuleNode
from initlint.analysis.positions import LazyPositions
from initlint.analysis.residual import ForwardReader
from initlint.analysis.usage import NameUses
from initlint.config import AnalysisOptions
from initlint.project import (
    CLASS,
    CONSTANT,
    ENTRY_POINTS,
    EXTERNAL,
    FUNCTION,
    MODULE,
    CallSite,
    Parsed,
    Project,
    Symbol,
)
from initlint.project.callers import init_statement
from initlint.project.layout import Location
from initlint.project.registries import Registration

T = TypeVar("T")
#: Calls that return the module they are called on: `GPT(cfg).to(device)` was built by `GPT(cfg)`.
_SAME_MODULE = frozenset({"to", "cuda", "cpu", "float", "half", "bfloat16", "double", "train", "eval", "to_empty"})


@dataclass(frozen=True)
class ProjectContext:
    """What the engine hands the analysis for a file that lies in a project on disk."""

    project: Project
    #: the checked file as the user named it (findings and evidence paths are shown like it)
    path: str
    #: the checked file's parse as the project shares it (its index, the names its code uses)
    parsed: Parsed | None = None

    def shared(self, module: cst.Module) -> Parsed | None:
        """The project's parse of the checked file, when `module` is its tree."""
        return self.parsed if self.parsed is not None and self.parsed.module is module else None


@dataclass(frozen=True)
class Place:
    """Where a node of a sibling file is: its path as shown to the user, 1-based line and column."""

    path: str
    line: int
    column: int


class LinkedIndex(ModuleIndex):
    """One module's index, answering class questions across the project's files."""

    def __init__(
        self, plain: ModuleIndex, linker: Linker, location: Location | None, parsed: Parsed | None, path: Path | None
    ) -> None:
        super().__init__(plain.imports, plain.classes, plain.functions, plain.constants)
        self.linker = linker
        self.location = location
        self.parsed = parsed
        self.path = path
        self._linked_chains: dict[int, list[str]] = {}

    def read_base(self, cls: ClassInfo, base: str) -> ClassInfo | None:
        own = self.linker.owner(cls) or self
        return own.classes.get(base) or self.linker.class_named(own, base)

    def class_named(self, name: str) -> ClassInfo | None:
        return self.classes.get(name) or self.linker.class_named(self, self.imported_name(name))

    def imported_name(self, name: str) -> str:
        """A dotted name written in this module, completed through its imports."""
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        return name if target is None else f"{target}.{rest}" if rest else target

    def base_chain(self, cls: ClassInfo) -> list[str]:
        """Base names (as each class's own module writes them) through every readable base."""
        cached = self._linked_chains.get(id(cls))
        if cached is None:
            cached = list(dict.fromkeys(base for current in self.mro(cls) for base in current.bases))
            self._linked_chains[id(cls)] = cached
        return cached


class Linker:
    """The checked file's view of its project: resolved names, the modules they live in, and
    where in the checked file each sibling definition was first reached from."""

    def __init__(self, context: ProjectContext, index: ModuleIndex) -> None:
        self.project = context.project
        self.shown = context.path
        self.path = Path(os.path.realpath(context.path))
        self.checked = LinkedIndex(index, self, self.project.layout.location_of(self.path), None, self.path)
        #: the checked file's parse, when the project shares it
        self.parsed = context.parsed
        self._modules: dict[Path, LinkedIndex] = {self.path: self.checked}
        self._real_paths: dict[Path, Path] = {}
        self._owners: dict[int, LinkedIndex] = {}
        self._symbols: dict[tuple[int, str], Symbol] = {}
        self._unloaded: dict[tuple[int, str], Symbol] = {}
        #: id of a sibling's top-level definition -> the checked file's node that reached it first
        self.entries: dict[int, cst.CSTNode] = {}
        self._positions: dict[int, LazyPositions] = {}
        self._register(self.checked)

    def _register(self, linked: LinkedIndex) -> None:
        for info in linked.classes.values():
            self._owners[id(info)] = self._owners[id(info.node)] = linked
            for method in info.methods.values():
                self._owners[id(method)] = linked
        for function in linked.functions.values():
            self._owners[id(function)] = linked

    def owner(self, item: object) -> LinkedIndex | None:
        """The module a ClassInfo, ClassDef or top-level FunctionDef was read from."""
        return self._owners.get(id(item))

    def symbol(self, importer: LinkedIndex, qualified: str, load: bool = True) -> Symbol:
        """What a name read in `importer` resolves to; with `load`, with its definition (a parse
        of its file: not needed to see that the library knowledge describes it)."""
        key = (id(importer), qualified)
        found = self._symbols.get(key)
        if found is None:
            found = self._unloaded.get(key)
            if found is None:
                found = self._unloaded[key] = self.project.resolve(importer.location, qualified)
            if not load:
                return found
            if found.kind in (CLASS, FUNCTION, CONSTANT) and not found.attribute:
                found = self.project.with_definition(found)
            self._symbols[key] = found
        return found

    def module(self, path: Path, parsed: Parsed) -> LinkedIndex:
        """The linked index of a project file (the checked file is its own)."""
        real = self._real_paths.get(path)
        if real is None:  # asked for the same few files again and again: resolve each once
            real = self._real_paths[path] = Path(os.path.realpath(path))
        linked = self._modules.get(real)
        if linked is None:
            linked = self._modules[real] = LinkedIndex(
                parsed.index, self, self.project.layout.location_of(real), parsed, real
            )
            self._register(linked)
        return linked

    def definition(self, symbol: Symbol) -> tuple[LinkedIndex, cst.CSTNode, ClassInfo | None] | None:
        found = symbol.definition
        if found is None or symbol.path is None:
            return None
        return self.module(symbol.path, found.parsed), found.node, found.info

    def class_named(self, importer: LinkedIndex, qualified: str) -> ClassInfo | None:
        if REGISTRY.knows(self.symbol(importer, qualified, load=False).qualified):
            return None  # a library class the registry describes, even inside that library's code
        found = self.definition(self.symbol(importer, qualified))
        return found[2] if found is not None else None

    # --------------------------------------------------------------- reporting
    def _top_level(self, node: cst.CSTNode) -> tuple[LinkedIndex, cst.CSTNode] | None:
        """The linked sibling file holding `node`, and its top-level statement there (the file
        linked last, where two files share one content and so one tree)."""
        own = self.parsed
        if (
            own is not None
            and own.top_statement(node) is not None
            and all(linked.parsed is not own for linked in self._modules.values())
        ):
            return None  # the checked file's own node (the usual question): no sibling mapped
        for linked in reversed(self._modules.values()):
            if linked is not self.checked and linked.parsed is not None:
                statement = linked.parsed.top_statement(node)
                if statement is not None:
                    return linked, statement
        return None

    def in_sibling(self, node: cst.CSTNode) -> bool:
        """Whether `node` is a sibling file's (where `place` is not None), without its position."""
        return self._top_level(node) is not None

    def place(self, node: cst.CSTNode) -> Place | None:
        """Where a node of a sibling file is; None for the checked file's own nodes."""
        found = self._top_level(node)
        if found is None:
            return None
        linked, _ = found
        assert linked.parsed is not None and linked.path is not None
        positions = self._positions.get(id(linked))
        if positions is None:
            positions = self._positions[id(linked)] = LazyPositions(linked.parsed.module, linked.parsed.source)
        code_range = positions.get(node)
        line, column = (code_range.start.line, code_range.start.column + 1) if code_range is not None else (1, 1)
        return Place(self.display(linked.path), line, column)

    def anchor(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The checked file's node through which the analysis reached the sibling code holding
        `node` (`Block(n_embd)` for a layer that `Block.__init__` creates in blocks.py)."""
        found = self._top_level(node)
        if found is None:
            return None
        linked, statement = found
        for definition in [info.node for info in linked.classes.values()] + list(linked.functions.values()):
            if id(definition) in self.entries and (self._top_level(definition) or (None, None))[1] is statement:
                return self.entries[id(definition)]
        return None

    def display(self, path: Path) -> str:
        """A sibling's path written the way the checked file's was (relative or absolute)."""
        if os.path.isabs(self.shown):
            return str(path)
        relative = os.path.relpath(path)
        return relative if not relative.startswith("..") else str(path)

    def in_project(self, path: Path) -> str:
        """A path as a label (`scripts/train.py`): relative to the project root."""
        try:
            return Path(os.path.realpath(path)).relative_to(self.project.root).as_posix()
        except ValueError:
            return str(path)


class LinkedInterpreter(Interpreter):
    """The interpreter, reading each definition in the names of the module it comes from."""

    def __init__(self, linker: Linker, module: cst.Module, options: AnalysisOptions) -> None:
        super().__init__(linker.checked, module, options)
        self.linker = linker
        self.linked: LinkedIndex = linker.checked
        #: the checked file's node through which the code now running was reached
        self._anchors: list[cst.CSTNode | None] = []
        self._sibling_constants: dict[tuple[int, str], Any] = {}
        self._registries: dict[str, dict[str, Any]] = {}

    # ----------------------------------------------------------- module scope
    def inside(self, item: object, work: Callable[[], T]) -> T:
        """Run `work` with the names of the module `item` (a class or function) comes from."""
        linked = self.linker.owner(item)
        if linked is None or linked is self.linked:
            return work()
        saved = self.linked
        self.index = self.linked = linked
        self._anchors.append(self.linker.entries.get(id(getattr(item, "node", item))))
        try:
            return work()
        finally:
            self.index = self.linked = saved
            self._anchors.pop()

    def in_module(self, index: ModuleIndex | None, work: Callable[[], T]) -> T:
        if not isinstance(index, LinkedIndex) or index is self.linked:
            return work()
        saved = self.linked
        self.index = self.linked = index
        # Code reached through the lambda is reached through whatever reached the lambda.
        self._anchors.append(self._anchors[-1] if self._anchors else None)
        try:
            return work()
        finally:
            self.index = self.linked = saved
            self._anchors.pop()

    def call_function(self, ref: FuncRef, args: list[Any], kwargs: dict[Any, Any], ctx: Ctx) -> Any:
        item = ref.owner if ref.owner is not None else ref.func
        return self.inside(item, lambda: Interpreter.call_function(self, ref, args, kwargs, ctx))

    def instantiate(
        self, cls: ClassInfo, args: list[Any], kwargs: dict[Any, Any], call: cst.CSTNode, ctx: Ctx, root: bool = False
    ) -> Any:
        return self.inside(cls, lambda: Interpreter.instantiate(self, cls, args, kwargs, call, ctx, root))

    def defined_here(self, cls: ClassInfo) -> bool:
        return self.linker.owner(cls) in (None, self.linker.checked)

    def source_path(self, cls: ClassInfo) -> Path | None:
        owner = self.linker.owner(cls) or self.linker.checked
        return owner.path if owner is not None else None

    # ------------------------------------------------------------------ names
    def eval(self, node: cst.BaseExpression | None, env: Env, ctx: Ctx) -> Any:
        value = Interpreter.eval(self, node, env, ctx)
        if isinstance(value, ExtRef) and isinstance(node, (cst.Name, cst.Attribute)):
            value = self._resolved(value)
        if isinstance(value, (ClassRef, FuncRef)) and node is not None:
            self._reached(value, node)
        return value

    def global_value(self, name: str) -> Any:
        index = self.linked
        if (
            index is self.linker.checked
            or name in index.classes
            or name in index.functions
            or name in index.imports
            or name not in index.constants
        ):
            return Interpreter.global_value(self, name)
        key = (id(index), name)  # constants are per module: two files may both define BASE_STD
        if key not in self._sibling_constants:
            self._sibling_constants[key] = UNKNOWN  # guards self-reference
            value = self._sibling_constants[key] = Interpreter.eval(self, index.constants[name], Env(), Ctx())
            self._fill_sibling_table(index, name, value)
        return self._sibling_constants[key]

    def _fill_sibling_table(self, linked: LinkedIndex, name: str, value: Any) -> None:
        if linked.parsed is not None:
            self.fill_table(name, value, linked.parsed.module.body)

    def _resolved(self, value: ExtRef) -> Any:
        symbol = self.linker.symbol(self.linked, value.name, load=False)
        if symbol.kind in (MODULE, EXTERNAL) or self.knowledge.knows(symbol.qualified):
            # Absolute from here on: it may travel to other modules. An attribute of a class the
            # registry knows (`PreTrainedModel._init_weights`) stays that attribute.
            return ExtRef(".".join((symbol.qualified, *symbol.attribute)))
        symbol = self.linker.symbol(self.linked, value.name)
        found = self.linker.definition(symbol)
        if found is None:
            return value
        linked, node, info = found
        if info is not None:
            return ClassRef(info)
        if isinstance(node, cst.FunctionDef):
            return FuncRef(node)
        if (
            symbol.kind == CONSTANT
            and isinstance(node, cst.Call)  # a registry is an object built by a call
            and self.linker.project.has_registrations(symbol.qualified)
        ):
            return Registry(symbol.qualified)
        if symbol.kind == CONSTANT and isinstance(node, cst.BaseExpression):
            key = (id(linked), symbol.name or "")
            if key not in self._sibling_constants:
                self._sibling_constants[key] = UNKNOWN
                value = self._sibling_constants[key] = self._in_module(
                    linked, lambda: Interpreter.eval(self, node, Env(), Ctx())
                )
                self._in_module(linked, lambda: self._fill_sibling_table(linked, symbol.name or "", value))
            return self._sibling_constants[key]
        return value

    def registry_entries(self, registry: Registry) -> dict[str, Any]:
        """Each registration read in the names of its own file, the last one of a name winning."""
        found = self._registries.get(registry.name)
        if found is None:
            found = self._registries[registry.name] = {}
            for entry in self.linker.project.registrations(registry.name):
                found[entry.name] = self._registered_value(entry)
        return found

    def _registered_value(self, entry: Registration) -> Any:
        linked = self.linker.module(entry.path, entry.parsed)
        value = entry.value
        if value is not None:
            return self._in_module(linked, lambda: self.eval(value, Env(), Ctx()))
        definition = entry.definition
        if isinstance(definition, cst.ClassDef) and definition.name.value in linked.classes:
            return ClassRef(linked.classes[definition.name.value])
        return FuncRef(definition) if isinstance(definition, cst.FunctionDef) else UNKNOWN

    def _in_module(self, linked: LinkedIndex, work: Callable[[], T]) -> T:
        saved = self.linked
        self.index = self.linked = linked
        try:
            return work()
        finally:
            self.index = self.linked = saved

    def _reached(self, value: ClassRef | FuncRef, node: cst.CSTNode) -> None:
        """Remember the checked file's node through which a sibling definition was first reached."""
        definition: cst.CSTNode = (
            value.cls.node
            if isinstance(value, ClassRef)
            else value.owner.node
            if value.owner is not None
            else value.func
        )
        owner = self.linker.owner(definition)
        if owner is None or owner is self.linker.checked:
            return
        anchor = node if self.linked is self.linker.checked else (self._anchors[-1] if self._anchors else None)
        if anchor is not None:
            self.linker.entries.setdefault(id(definition), anchor)

    # ---------------------------------------------------------- entry points
    def run_project_callers(self, root: ModuleNode) -> None:
        """Run the init entry points the constructor left alone as the project's callers do."""
        cls = root.cls
        linked = self.linker.owner(cls) if cls is not None else None
        if cls is None or linked is None or linked is not self.linker.checked and not root.foreign:
            return
        location = linked.location
        symbol = self.linker.project.resolve_symbol(location, cls.name) if location is not None else None
        if symbol is None or symbol.kind != CLASS:
            return
        for name in ENTRY_POINTS:
            found = self.index.find_method(cls, name)
            if found is None or id(found[1]) in self.executed:
                continue
            # Only calls on a receiver built from this class are followed: only files naming it.
            sites = [site for site in self.linker.project.find_calls(name, symbol, cls.name) if _from_outside(site)]
            distinct = {(site.via, tuple(self.code(arg) for arg in site.arguments)) for site in sites}
            if len(distinct) == 1:
                self._run_site(root, found, sites[0])
            elif sites:
                # Callers that run it differently (train.py and finetune.py): which one built the
                # model cannot be told, so every parameter's init is undecided.
                self.executed.add(id(found[1]))
                self.linker.module(sites[0].path, sites[0].parsed)
                why = f"{cls.name}.{name} called with different arguments in the project"
                self.mark_unknown_targets([ModRef(root)], {}, Ctx(), sites[0].call, why)
        self._run_parameter_inits(root, symbol)

    def _run_parameter_inits(self, root: ModuleNode, symbol: Symbol) -> None:
        """A model that leaves parameters uninitialised (`skip_init(nn.Linear, ...)`) leaves its
        init to whoever builds it: a loop of the project that inits every parameter of a built
        model (`for p in model.parameters(): uniform_(p, -a, a)` in a builder or a training
        script) is that init where it is the project's only one that may be this model's (its
        receiver built from this class, or by a function), run on it in its own file."""
        # Only layers built by `skip_init` say their init is left to the builder: a model with a
        # `torch.empty` parameter it forgot to fill (common in big packages) would otherwise send
        # every check of its files through a parse of each project file that names `parameters`.
        if not any(_skipped_init(op) for _, param in root.named_parameters() for op in param.ops[-1:]):
            return
        inits = self.linker.project.find_parameter_inits(symbol)
        statement = init_statement(inits) if inits else None
        if statement is None or not all(found.site.receiver.isidentifier() for found in inits):
            return
        site = inits[0].site
        env = Env({param.name.value: Opaque(param.name.value) for param in _parameters(inits[0].function)})
        # A receiver a loop of the statement binds (`for _, module in model.named_modules()`) is rebound there.
        env.names.update((found.site.receiver, ModRef(root)) for found in inits)
        where = f"{self.linker.in_project(site.path)}:{site.line} `for ... in {site.receiver}.{site.method}()`"
        caller = self.linker.module(site.path, site.parsed)
        self._in_module(caller, lambda: self.exec_block([statement], env, Ctx(via=(where,))))

    def _run_site(self, root: ModuleNode, found: tuple[ClassInfo, cst.FunctionDef], site: CallSite) -> None:
        owner, func = found
        caller = self.linker.module(site.path, site.parsed)
        args, kwargs = self._in_module(caller, lambda: self._site_arguments(root, site))
        where = f"{self.linker.in_project(site.path)}:{site.line} `{self.code(site.call)[:60]}`"
        ctx = Ctx(via=(where, f"{owner.name}.{func.name.value}"))
        method = FuncRef(func, owner, ModRef(root))
        if site.via == "apply":
            for module in list(root.post_order()):
                self.call_function(method, args + [ModRef(module)], dict(kwargs), ctx)
        else:
            self.call_function(method, args, kwargs, ctx)

    def _site_arguments(self, root: ModuleNode, site: CallSite) -> tuple[list[Any], dict[str, Any]]:
        """The call's arguments, read in the caller's file; a value the model was also built with
        (`GPT(n_layer=N_LAYER)` then `n_layer=N_LAYER`) is the constructor's symbolic parameter."""
        built = _constructor_arguments(self, root, site)
        env = Env({name: value for name, value in built.items() if name.isidentifier()})
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for arg in site.arguments:
            text = self.code(arg.value)
            value = built[text] if text in built else self.eval(arg.value, env, Ctx())
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = _symbolic_depth(self, arg.keyword.value, value)
            elif not arg.star:
                args.append(value)
        return args, kwargs


def _parameters(function: cst.FunctionDef | None) -> list[cst.Param]:
    if function is None:
        return []
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _skipped_init(op: InitOp) -> bool:
    """The op leaves a layer's parameter as `skip_init` built it: uninitialised on purpose."""
    return op.kind == "empty" and op.label.startswith("skip_init(")


def _from_outside(site: CallSite) -> bool:
    """A call on the model from elsewhere, not the class delegating to its own entry point."""
    return site.receiver != "self" and site.receiver_class is not None and site.receiver_class.kind == CLASS


def _constructor_arguments(interp: LinkedInterpreter, root: ModuleNode, site: CallSite) -> dict[str, Any]:
    """Source text of each argument the receiver was built with -> the root's parameter it fills."""
    call = site.receiver_value
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in _SAME_MODULE:
        call = call.func.value
    found = interp.index.find_method(root.cls, "__init__") if root.cls is not None else None
    if not isinstance(call, cst.Call) or found is None:
        return {}
    params = [param.name.value for param in found[1].params.params[1:]]
    bound: dict[str, Any] = {}
    for position, arg in enumerate(call.args):
        name = (
            arg.keyword.value
            if arg.keyword is not None
            else params[position]
            if position < len(params) and not arg.star
            else None
        )
        if name is not None:
            bound[interp.code(arg.value)] = Opaque(name)
    return bound


def _symbolic_depth(interp: Interpreter, name: str, value: Any) -> Any:
    """A depth passed as a plain number (`n_layer=24`) keeps its name: the stack's depth is symbolic."""
    if name in DEPTH_NAMES or name in interp.options.depth_names:
        if (
            isinstance(value, Num)
            and value.value.is_constant
            or isinstance(value, Const)
            and isinstance(value.value, (int, float))
        ):
            return Opaque(name)
    return value


class LinkedForwardReader(ForwardReader):
    """Reads each block's `forward` in the names of the module that defines the block."""

    def __init__(self, interp: LinkedInterpreter) -> None:
        super().__init__(interp)
        self.linked_interp = interp

    def _read(self, node: ModuleNode, depth: int, *more: Any, **named: Any) -> Any:
        # Whatever else the reader passes (the block a loop owner reads for) goes through as is.
        if node.cls is None:
            return ForwardReader._read(self, node, depth, *more, **named)
        return self.linked_interp.inside(node.cls, lambda: ForwardReader._read(self, node, depth, *more, **named))

    def _inline(self, func: cst.FunctionDef, *more: Any, **named: Any) -> Any:
        # A helper of another file reads the names of its own module.
        return self.linked_interp.inside(func, lambda: ForwardReader._inline(self, func, *more, **named))

    def _passes_through(self, module: ModuleNode) -> bool:
        # Stochastic depth of another file calls the helpers of its own module.
        if module.cls is None:
            return ForwardReader._passes_through(self, module)
        return self.linked_interp.inside(module.cls, lambda: ForwardReader._passes_through(self, module))


def interpreter(
    module: cst.Module, index: ModuleIndex, options: AnalysisOptions, context: ProjectContext | None
) -> Interpreter:
    """The plain interpreter, or one that follows names into the project when there is one."""
    if context is None:
        return Interpreter(index, module, options)
    return LinkedInterpreter(Linker(context, index), module, options)


def forward_reader(interp: Interpreter) -> ForwardReader:
    return LinkedForwardReader(interp) if isinstance(interp, LinkedInterpreter) else ForwardReader(interp)


def after_construction(interp: Interpreter, root: ModuleNode) -> None:
    if isinstance(interp, LinkedInterpreter):
        interp.run_project_callers(root)


def stacking_files(interp: Interpreter) -> list[tuple[LinkedIndex, NameUses]]:
    """The project files that use the checked file's definitions (where its blocks may be
    stacked), outermost first: a model built from them contains the nearer files' classes."""
    if not isinstance(interp, LinkedInterpreter):
        return []
    linker = interp.linker
    found: list[tuple[LinkedIndex, NameUses]] = []
    for path in reversed(linker.project.users_of(linker.path)):
        parsed = linker.project.parsed_file(path)
        if isinstance(parsed, Parsed):
            found.append((linker.module(path, parsed), parsed.uses))
    return found


def in_checked_file(index: ModuleIndex, node: cst.CSTNode) -> bool:
    linker = linker_of(index)
    return linker is None or not linker.in_sibling(node)


def linker_of(index: ModuleIndex) -> Linker | None:
    return index.linker if isinstance(index, LinkedIndex) else None


def describe_place(index: ModuleIndex, node: cst.CSTNode, line: Callable[[cst.CSTNode], int]) -> str:
    """`line 12` for the checked file, `src/pkg/blocks.py:12` for a sibling's node."""
    linker = linker_of(index)
    place = linker.place(node) if linker is not None else None
    return f"{place.path}:{place.line}" if place is not None else f"line {line(node)}"

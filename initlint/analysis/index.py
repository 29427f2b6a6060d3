"""Stage 1: the index of one module — imports, classes, functions, constants.

Only top-level statements and class bodies are read (plus `if`/`try` blocks around
them, where imports hide); nothing is executed or imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst

from initlint.analysis.knowledge import REGISTRY

#: Bases that make a class an `nn.Module` even though they are defined elsewhere.
MODULE_BASES = REGISTRY.module_bases() | REGISTRY.pretrained_class_names()
#: Library bases whose init entry points (`post_init()`) apply `_init_weights` to every module.
HF_PRETRAINED_BASES = REGISTRY.pretrained_bases() | REGISTRY.pretrained_class_names()
_PRETRAINED_SUFFIXES = tuple(f".{name}" for name in REGISTRY.pretrained_class_names())
#: A base named like one (`GPT2PreTrainedModel` imported from a sibling modeling file) is a model.
PRETRAINED_NAME_ENDINGS = tuple(REGISTRY.pretrained_class_names())
#: Bases that only make a class generic for type checkers: no behaviour, so no base to read.
_TYPING_BASES = frozenset(
    f"{module}.{name}" for module in ("typing", "typing_extensions") for name in ("Generic", "Protocol")
)


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`torch.nn.init.normal_` for an Attribute chain of Names, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


@dataclass
class ClassInfo:
    name: str
    node: cst.ClassDef
    bases: tuple[str, ...]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    attributes: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: The annotations of the annotated class attributes (a dataclass's field types).
    annotations: dict[str, cst.BaseExpression] = field(default_factory=dict)
    _init_fields: dict[str, cst.BaseExpression] | None = field(default=None, repr=False, compare=False)

    def init_fields(self) -> dict[str, cst.BaseExpression]:
        """What a plain class's `__init__` stores on `self` once and unconditionally
        (`self.n_layers = n_layers`), a parameter written as its default: a config class's fields
        as the config built with its defaults has them. An attribute set again anywhere in
        `__init__` (`if alibi: self.learned_pos_emb = False`) is left out: its value depends."""
        if self._init_fields is None:
            init = self.methods.get("__init__")
            self._init_fields = _init_fields(init) if init is not None else {}
        return self._init_fields


def _init_fields(init: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    params = (*init.params.params, *init.params.kwonly_params)
    if not params or not isinstance(init.body, cst.IndentedBlock):
        return {}
    owner = params[0].name.value
    defaults = {p.name.value: p.default for p in params[1:]}
    counter = _SelfAssignments(owner)
    init.body.visit(counter)
    found: dict[str, cst.BaseExpression] = {}
    for stmt in init.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            target = _single_target(small)
            name = _self_attribute(target, owner) if target is not None else None
            if name is None or counter.counts.get(name) != 1 or not isinstance(small, (cst.Assign, cst.AnnAssign)):
                continue
            value = small.value
            if isinstance(value, cst.Name) and value.value in defaults:
                value = defaults[value.value]  # a parameter without a default leaves the field unknown
            if value is not None:
                found[name] = value
    return found


def _single_target(small: cst.BaseSmallStatement) -> cst.BaseExpression | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.targets[0].target
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return small.target
    return None


def _self_attribute(target: cst.BaseExpression, owner: str) -> str | None:
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == owner:
        return target.attr.value
    return None


class _SelfAssignments(cst.CSTVisitor):
    """How often each `self.x` is assigned in a method (nested functions are other scopes)."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.counts: dict[str, int] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._count(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._count(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._count(node.target)

    def _count(self, target: cst.BaseExpression) -> None:
        targets = (
            [element.value for element in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        )
        for each in targets:
            name = _self_attribute(each, self.owner)
            if name is not None:
                self.counts[name] = self.counts.get(name, 0) + 1


@dataclass
class ModuleIndex:
    imports: dict[str, str] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    constants: dict[str, cst.BaseExpression] = field(default_factory=dict)
    _chains: dict[str, list[str]] = field(default_factory=dict, repr=False)
    #: Each class's `mro`, by id (the class kept beside it, so an id is never reused).
    _mros: dict[int, tuple[ClassInfo, list[ClassInfo]]] = field(default_factory=dict, repr=False)

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """The qualified name an expression refers to, through import aliases."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

    def base_chain(self, cls: ClassInfo) -> list[str]:
        """Qualified names of all bases, walking through classes defined in this file."""
        cached = self._chains.get(cls.name)
        if cached is None:
            cached = self._chains[cls.name] = self._walk_bases(cls)
        return cached

    def _walk_bases(self, cls: ClassInfo) -> list[str]:
        chain: list[str] = []
        seen = {cls.name}
        pending = list(cls.bases)
        while pending:  # iterative: a 300-class hierarchy must not recurse 300 deep
            base = pending.pop(0)
            chain.append(base)
            local = self.classes.get(base)
            if local is not None and base not in seen:
                seen.add(base)
                pending.extend(local.bases)
        return chain

    def is_module_class(self, cls: ClassInfo) -> bool:
        chain = self.base_chain(cls)
        if any(
            base in MODULE_BASES or base.endswith(PRETRAINED_NAME_ENDINGS) or base.endswith(".Module") for base in chain
        ):
            return True
        # A base from elsewhere that we cannot see: a class with a forward is a module.
        return "forward" in cls.methods and any(base not in self.classes for base in chain)

    def is_hf_pretrained(self, cls: ClassInfo) -> bool:
        return any(base in HF_PRETRAINED_BASES or base.endswith(_PRETRAINED_SUFFIXES) for base in self.base_chain(cls))

    def bases_of(self, cls: ClassInfo) -> list[ClassInfo]:
        """The bases of `cls` whose definition can be read (here: those defined in this file)."""
        return [info for info in (self.read_base(cls, base) for base in cls.bases) if info is not None]

    def class_named(self, name: str) -> ClassInfo | None:
        """The class a name written in this module means, where its definition can be read
        (here: a class of this file)."""
        return self.classes.get(name)

    def unread_bases(self, cls: ClassInfo) -> list[str]:
        """Bases of `cls` and of its readable bases whose definition cannot be read: classes
        from outside the code (`torch.nn.Module`), as their subclass's module writes them."""
        return [base for current in self.mro(cls) for base in current.bases if self.read_base(current, base) is None]

    def read_base(self, cls: ClassInfo, base: str) -> ClassInfo | None:
        """The definition of one base of `cls`, where it can be read (here: in this file)."""
        return self.classes.get(base)

    def mro(self, cls: ClassInfo) -> list[ClassInfo]:
        """`cls` and the bases whose definition can be read (MRO approximated breadth-first).
        Read-only: one list per class, asked for at every method lookup (a chain of n classes
        read n times over costs n^2 base reads uncached)."""
        cached = self._mros.get(id(cls))
        if cached is not None and cached[0] is cls:
            return cached[1]
        order = self._walk_mro(cls)
        self._mros[id(cls)] = (cls, order)
        return order

    def _walk_mro(self, cls: ClassInfo) -> list[ClassInfo]:
        order: list[ClassInfo] = []
        seen: set[int] = set()
        pending = [cls]
        while pending:
            current = pending.pop(0)
            if id(current) in seen:
                continue
            seen.add(id(current))
            order.append(current)
            pending.extend(self.bases_of(current))
        return order

    def find_method(self, cls: ClassInfo, name: str) -> tuple[ClassInfo, cst.FunctionDef] | None:
        """Method lookup through the base chain (`mro`)."""
        for current in self.mro(cls):
            if name in current.methods:
                return current, current.methods[name]
        return None

    def module_classes(self) -> list[ClassInfo]:
        return [cls for cls in self.classes.values() if self.is_module_class(cls)]

    def config_flag(self, name: str) -> bool | None:
        """The default of a boolean config field `name` (`bias: bool = True` in a dataclass,
        `def __init__(self, bias=True)` in a plain config class) where every class of the file that
        is not a module and declares it agrees: the model the runtime builds without `--config`."""
        found = {_flag_default(cls, name) for cls in self.classes.values() if not self.is_module_class(cls)}
        found.discard(None)
        return found.pop() if len(found) == 1 else None


def _flag_default(cls: ClassInfo, name: str) -> bool | None:
    value = cls.attributes.get(name)
    init = cls.methods.get("__init__")
    if value is None and init is not None:
        value = next(
            (p.default for p in (*init.params.params, *init.params.kwonly_params) if p.name.value == name), None
        )
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    return None


def _record_import(index: ModuleIndex, stmt: cst.Import | cst.ImportFrom) -> None:
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                index.imports[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                index.imports.setdefault(head, head)
        return
    if isinstance(stmt.names, cst.ImportStar):
        return
    module = dotted_name(stmt.module) if stmt.module is not None else ""
    if stmt.relative:
        module = "." * len(stmt.relative) + (module or "")
    for alias in stmt.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        local = (
            alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
        )
        index.imports[local] = f"{module}.{name}" if module else name


def _class_info(index: ModuleIndex, node: cst.ClassDef) -> ClassInfo:
    bases = []
    for arg in node.bases:
        if arg.keyword is None:
            # `StreamingModule[State]`: a generic base subscripted, which is that base at run time.
            value = arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value
            resolved = index.resolve(value)
            if resolved is not None and resolved not in _TYPING_BASES:
                bases.append(resolved)
    info = ClassInfo(node.name.value, node, tuple(bases))
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            info.methods[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    info.attributes[small.targets[0].target.value] = small.value
                elif (
                    isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None
                ):
                    info.attributes[small.target.value] = small.value
                    info.annotations[small.target.value] = small.annotation.annotation
    return info


def _index_block(index: ModuleIndex, body: Sequence[cst.CSTNode]) -> None:
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    _record_import(index, small)
                elif (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    index.constants[small.targets[0].target.value] = small.value
                elif (
                    isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name)
                ):
                    index.constants[small.target.value] = small.value  # `DEFAULTS: dict = {...}`
        elif isinstance(stmt, cst.ClassDef):
            index.classes[stmt.name.value] = _class_info(index, stmt)
        elif isinstance(stmt, cst.FunctionDef):
            index.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.If):
            _index_block(index, stmt.body.body)
            orelse = stmt.orelse
            while orelse is not None:
                _index_block(index, orelse.body.body)
                orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        elif isinstance(stmt, cst.Try):
            _index_block(index, stmt.body.body)
            for handler in stmt.handlers:
                _index_block(index, handler.body.body)


def build_index(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex()
    _index_block(index, module.body)
    return index

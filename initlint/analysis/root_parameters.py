"""A root's parameters as the analysis reads them without a caller: symbols that remember a
string or number default, and the config class a parameter is typed with (a dataclass, or a
class whose `__init__` stores its settings), read from a plain or a union annotation."""

from __future__ import annotations

import libcst as cst

from initlint.analysis.abstract import Const, Opaque, Seq
from initlint.analysis.index import ClassInfo, ModuleIndex, dotted_name
from initlint.analysis.knowledge import REGISTRY


def root_parameter(
    index: ModuleIndex, param: cst.Param, typed: ClassInfo | None, bound: dict[str, ClassInfo] | None = None
) -> Opaque:
    """A root's parameter: a symbol, remembering a string default or the dataclass it is typed
    with (`bound`: the classes the root's generic bases give the type variables of its `__init__`)."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    cls = annotated_class(index, annotation, bound) if annotation is not None else typed
    fields = cls if cls is not None and is_config_class(index, cls) else None
    default = _string_default(param)
    empty = _empty_container_default(param.default)
    if empty is not None and param.default is not None:
        # `use_ckpting=[]`: nothing is in it (`"ffn" in use_ckpting`), as in the model built with
        # its defaults.
        assumed = (f"{param.name.value}={cst.Module([]).code_for_node(param.default)}", param.default)
        return Opaque(param.name.value, None, fields, compared=empty, assumed=assumed)
    if default is None or param.default is None:
        number = _number_default(param.default)
        nonzero = number != 0 if number is not None else None
        return Opaque(
            param.name.value, None, fields, default_type=_number_type(param.default), nonzero=nonzero, number=number
        )
    # Comparisons decide by the string default, as the model built with its defaults does.
    assumed = (f"{param.name.value}={cst.Module([]).code_for_node(param.default)}", param.default)
    return Opaque(param.name.value, default, fields, compared=Const(default), assumed=assumed)


def annotated_class(
    index: ModuleIndex, annotation: cst.BaseExpression, bound: dict[str, ClassInfo] | None = None
) -> ClassInfo | None:
    """The class of the code a parameter is typed with: `cfg: Config`, or the one class of a union
    whose other members are None or builtin containers (`block: BlockConfig | dict[str,
    BlockConfig]`, `Optional[BlockConfig]`): a value of that class, as the plain case reads it.
    A type variable is the class `bound` gives it."""
    found = None
    for member in union_members(annotation):
        name = dotted_name(member)
        cls = (bound or {}).get(name) or index.class_named(name) if name is not None else None
        if cls is not None and found is None:
            found = cls
        elif cls is not None or not _container_or_none(member):
            return None
    return found


def type_arguments(index: ModuleIndex, cls: ClassInfo, owner: ClassInfo) -> dict[str, ClassInfo]:
    """The classes a generic `owner` (`class Base(nn.Module, Generic[C])`, `class Base[C]`) has its
    type variables bound to where `cls` or one of its bases subclasses it with arguments
    (`class Encoder(Base[EncoderConfig])`): type variable -> class, for the arguments that name a
    class of the code. Empty where no base binds them."""
    variables = _type_variables(owner.node)
    for current in index.mro(cls) if variables else ():
        for base in current.node.bases:
            generic = base.value
            if (
                not isinstance(generic, cst.Subscript)
                or index.class_named(dotted_name(generic.value) or "") is not owner
            ):
                continue
            arguments = [
                element.slice.value if isinstance(element.slice, cst.Index) else None for element in generic.slice
            ]
            named = {
                variable: dotted_name(argument) if argument is not None else None
                for variable, argument in zip(variables, arguments)
            }
            return {variable: found for variable, name in named.items() if name and (found := index.class_named(name))}
    return {}


def _type_variables(node: cst.ClassDef) -> list[str]:
    """A generic class's type variables, in order: its type parameters (`class Base[C]`), else
    those its `Generic[...]` or `Protocol[...]` base lists."""
    if node.type_parameters is not None:
        return [param.param.name.value for param in node.type_parameters.params if isinstance(param.param, cst.TypeVar)]
    for base in node.bases:
        if isinstance(base.value, cst.Subscript) and _last_name(base.value.value) in ("Generic", "Protocol"):
            return [
                dotted_name(element.slice.value) or ""
                for element in base.value.slice
                if isinstance(element.slice, cst.Index)
            ]
    return []


def union_members(annotation: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The members of a union annotation (`A | None`, `Optional[A]`, `Union[A, B]`, nested ones
    flattened); a plain annotation is its own one member."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return [*union_members(annotation.left), *union_members(annotation.right)]
    if isinstance(annotation, cst.Subscript) and _last_name(annotation.value) in ("Optional", "Union"):
        return [
            member
            for element in annotation.slice
            if isinstance(element.slice, cst.Index)
            for member in union_members(element.slice.value)
        ]
    return [annotation]


#: Union members that leave the one class of the union its value (`x: Config | None`).
_PLAIN_MEMBERS = frozenset({"None", "dict", "list", "tuple", "Dict", "List", "Tuple", "Mapping", "Sequence"})


def _container_or_none(member: cst.BaseExpression) -> bool:
    return _last_name(member.value if isinstance(member, cst.Subscript) else member) in _PLAIN_MEMBERS


def _last_name(node: cst.BaseExpression) -> str:
    return (dotted_name(node) or "").rpartition(".")[2]


def _number_default(default: cst.BaseExpression | None) -> float | None:
    """The value of a number literal default (`eps=-1e-6`), None for anything else."""
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, (cst.Minus, cst.Plus)):
        default = default.expression
    if isinstance(default, (cst.Integer, cst.Float)):
        return float(default.evaluated_value)
    return None


def _number_type(default: cst.BaseExpression | None) -> str | None:
    """The builtin type ("int" or "float") of a number literal default (`heads=8`, `eps=-1e-6`)."""
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, (cst.Minus, cst.Plus)):
        default = default.expression
    if isinstance(default, cst.Integer):
        return "int"
    return "float" if isinstance(default, cst.Float) else None


def is_config_class(index: ModuleIndex, cls: ClassInfo) -> bool:
    """A dataclass, or a plain class (not a module) whose `__init__` stores its settings."""
    return is_dataclass(index, cls) or (not index.is_module_class(cls) and bool(cls.init_fields()))


def dataclass_fields(index: ModuleIndex, mro: list[ClassInfo]) -> list[str]:
    """The fields of a dataclass with this MRO, in the order its `__init__` takes them (a base's
    fields first); none for a class no dataclass decorator or base made."""
    return [name for owner in reversed(mro) if is_dataclass(index, owner) for name in annotated_names(owner)]


def annotated_names(cls: ClassInfo) -> list[str]:
    """The names a class body annotates (`mixer: str = "mlp"`), in order: a dataclass's fields."""
    names = []
    for statement in cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ():
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                names.append(small.target.value)
    return names


def is_dataclass(index: ModuleIndex, cls: ClassInfo) -> bool:
    """A class a dataclass decorator makes, or one whose base does (pydantic's `BaseModel`)."""
    if REGISTRY.makes_dataclass(index.base_chain(cls)):
        return True
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
        if name in REGISTRY.dataclass_decorator_names():
            return True
    return False


def _empty_container_default(default: cst.BaseExpression | None) -> Seq | None:
    """An empty list or tuple default (`layers=[]`, `skip=()`), as a value; None for anything else."""
    if isinstance(default, (cst.List, cst.Tuple)) and not default.elements:
        return Seq([], written_as="list" if isinstance(default, cst.List) else "tuple")
    return None


def _string_default(param: cst.Param) -> str | None:
    default = param.default
    value = default.evaluated_value if isinstance(default, cst.SimpleString) else None
    return value if isinstance(value, str) else None

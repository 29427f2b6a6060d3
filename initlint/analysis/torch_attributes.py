"""Reading an attribute in the interpreter (`base.attr`): of a layer (`self.wo`, a property,
a method), of a tensor (`.shape`, `.ndim`, its init methods), of a class (an enum member), of a
config whose fields and their defaults the code shows, and through `super()`. Writing one is
`module_registration.py`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    ClassRef,
    Const,
    EnumMember,
    Env,
    ExtRef,
    FuncRef,
    Mapping,
    ModRef,
    NewTensor,
    Opaque,
    ParamRef,
    Registry,
    Seq,
    SuperRef,
)
from initlint.analysis.index import ClassInfo, dotted_name
from initlint.analysis.knowledge.conventions import DELIBERATE_CONFIG_NAMES
from initlint.analysis.knowledge.torch_init import (
    RANK_ATTRIBUTES,
    RANK_METHODS,
    SHAPE_ATTRIBUTES,
    SHAPE_METHODS,
    VALUE_KEEPING_METHODS,
)
from initlint.analysis.model import InitOp, ModuleNode, Param
from initlint.analysis.module_methods import MODULE_METHOD_HANDLERS
from initlint.analysis.python_semantics import (
    ENUM_BASES,
    MIXED_ENUM_BASES,
    STRING_METHODS,
    BoundMethod,
    as_index,
    config_entry,
    string_default,
)
from initlint.analysis.root_parameters import union_members

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


def get_attr(interp: "Interpreter", base: Any, attr: str, ctx: "Ctx") -> Any:
    if isinstance(base, ExtRef):
        return ExtRef(f"{base.name}.{attr}")
    if isinstance(base, ModRef):
        found = module_attr(interp, base.node, attr, ctx)
        return _on_each_arm(found, [module_attr(interp, other, attr, ctx) for other in base.others])
    if isinstance(base, ParamRef) and attr == "data":
        return base
    if isinstance(base, (ParamRef, NewTensor)):
        return _tensor_attr(interp, base, attr)
    if isinstance(base, SuperRef):
        return super_attr(interp, base, attr)
    if isinstance(base, ClassRef):
        found = interp.index.find_method(base.cls, attr)
        if found is not None:
            return method_ref(found[1], found[0], None, base)
        if attr in base.cls.attributes:
            return _class_attribute(interp, base.cls, attr, ctx)
        return Opaque(attr)
    if isinstance(base, (Const, Seq, Mapping, Registry)):
        return _value_attribute(interp, base, attr)
    if isinstance(base, Opaque) and (attr == "get" or string_default(base) is not None and attr in STRING_METHODS):
        # `config.get("n_layer", 12)` on a dict config; `norm_type.lower()` on a string default
        return BoundMethod(base, attr)
    if declares_field(base, attr):
        fields = base.fields
        assert fields is not None
        return interp.inside(fields, lambda: _field_default(interp, fields, attr, ctx))
    if isinstance(base, Opaque) and base.fields is not None:
        # `block_config.build(d_model)`: the config's own method, reading the fields it was given.
        found = interp.index.find_method(base.fields, attr)
        if found is not None:
            return method_ref(found[1], found[0], base, ClassRef(base.fields))
    if attr in DELIBERATE_CONFIG_NAMES:
        interp.deliberate_scheme = DELIBERATE_CONFIG_NAMES[attr]
    return Opaque(attr)


def _attribute_entry(interp: "Interpreter", hparams: Mapping, attr: str) -> Any:
    """`hp.n_layer` of an attribute dict: the entry, read as `hp["n_layer"]` reads it; a dict
    inside it reads its keys as attributes too (`hp.attention.num_heads`), as the containers that
    convert nested dicts do (on those that do not, such code would not run)."""
    entry = config_entry(interp, hparams, Const(attr), UNKNOWN)
    if isinstance(entry, Mapping) and not entry.attributes:
        return Mapping(entry.items, entry.repeat, entry.open, attributes=True)
    return entry


def _class_attribute(interp: "Interpreter", cls: ClassInfo, attr: str, ctx: "Ctx") -> Any:
    """A class attribute by its value; a member of an enum class is that member (`InitFnType.normal`),
    which compares as Python compares enum members."""
    value = interp.inside(cls, lambda: interp.eval(cls.attributes[attr], Env(), ctx))
    bases = {base.rpartition(".")[2] for base in interp.index.base_chain(cls)}
    if not bases & ENUM_BASES:
        return value
    mixed = bool(bases & MIXED_ENUM_BASES)
    if mixed and not (isinstance(value, Const) and isinstance(value.value, (str, int))):
        return UNKNOWN  # `auto()` and the like: the value it compares by is not known
    member = value.value if isinstance(value, Const) else None
    return Const(EnumMember(id(cls.node), attr, member, mixed))


def _value_attribute(interp: "Interpreter", base: Const | Seq | Mapping | Registry, attr: str) -> Any:
    """A method of a value (`"a".upper`, `cfg.get`), an entry of an attribute dict (`hp.n_layer`),
    or an enum member's `.value` (the string a builder picks its block by:
    `ActivationType.SWIGLU.value`) and `.name`; a value the code does not write out (`auto()`)
    stays unknown."""
    if isinstance(base, Mapping) and base.attributes and attr in base.items:
        return _attribute_entry(interp, base, attr)
    if not (isinstance(base, Const) and isinstance(base.value, EnumMember) and attr in ("value", "name")):
        return BoundMethod(base, attr)
    member = base.value
    if attr == "name":
        return Const(member.name)
    return Const(member.value) if member.value is not None else UNKNOWN


def _field_default(interp: "Interpreter", fields: ClassInfo, attr: str, ctx: "Ctx") -> Any:
    """A dataclass config's field by its default: a flag (`use_moe: bool = False`) or an enum
    member (`init_fn: InitFnType = InitFnType.normal`) decides as the default config does; a
    string is kept as a root's string default is, and compares as its default; a number stays the symbol it is named by (depth
    and widths keep their meaning), compared by its default."""
    sub_config = _sub_config(interp, fields, attr, ctx) or _factory_config(interp, fields, attr, ctx)
    if sub_config is not None:
        return sub_config
    stored = fields.init_fields().get(attr)
    expr = stored if stored is not None else _declared_default(fields.attributes[attr])
    value = interp.eval(expr, _init_defaults(interp, fields, ctx) if stored is not None else Env(), ctx)
    if isinstance(value, Const) and value.value is None:
        value = _filled_after_init(interp, fields, attr, ctx) or value
    number = _number_annotation(fields.annotations.get(attr))
    if isinstance(value, Const) and value.value is None and number is not None:
        # `n_layers: int | None = None`, filled by presets or the caller: the symbol it is named
        # by, deciding comparisons as None does (a root parameter left at None reads the same)
        # and `isinstance` as its declared type does (a validator's `isinstance(dim, int)`).
        return Opaque(attr, compared=value, default_type=number)
    if isinstance(value, Const) and isinstance(value.value, EnumMember):
        # The switch the default config takes: evidence for whatever it decides.
        interp.enum_defaults.setdefault(f"{fields.name}.{attr} = {interp.code(expr)}", expr)
    if isinstance(value, Const) and (value.value is None or isinstance(value.value, (bool, EnumMember))):
        return value
    if isinstance(value, Const) and isinstance(value.value, str):
        return Opaque(attr, value.value, compared=value, assumed=(f"{fields.name}.{attr} = {interp.code(expr)}", expr))
    if isinstance(value, Const) and isinstance(value.value, (int, float)):
        return Opaque(attr, compared=value)
    if isinstance(value, Mapping):
        return value  # a dict of settings a plain config class falls back to (`copy.deepcopy(DEFAULTS)`)
    return Opaque(attr)


def _number_annotation(annotation: cst.BaseExpression | None) -> str | None:
    """The number type of a field declared `int | None`, `Optional[int]` or `float | None`; None
    for any other annotation."""
    members = union_members(annotation) if annotation is not None else []
    names = {dotted_name(member) for member in members} - {"None"}
    return names.pop() if names in ({"int"}, {"float"}) else None


_FILLING: set[tuple[int, str]] = set()  # fields whose `__post_init__` fill is being read


def _filled_after_init(interp: "Interpreter", fields: ClassInfo, attr: str, ctx: "Ctx") -> Any:
    """A dataclass field left None and filled by `__post_init__` (`if self.n is None: self.n =
    self.num_layers`, or unconditionally): its value in the default config, the fill read with the
    other fields at their defaults; None where no such fill is written."""
    found = interp.index.find_method(fields, "__post_init__")
    params = found[1].params.params if found is not None else ()
    fill = _post_init_fill(found[1], params[0].name.value, attr) if found is not None and params else None
    key = (id(fields.node), attr)
    if fill is None or key in _FILLING:
        return None
    config = Opaque(fields.name, fields=fields)
    _FILLING.add(key)
    try:
        value = interp.inside(
            found[0] if found else fields, lambda: interp.eval(fill, Env({params[0].name.value: config}), ctx)
        )
    finally:
        _FILLING.discard(key)
    return value.compared if isinstance(value, Opaque) and value.compared is not None else value


def _post_init_fill(func: cst.FunctionDef, owner: str, attr: str) -> cst.BaseExpression | None:
    """`self.attr = value` at the top of `func`, or at the top of an `if self.attr is None:` there."""
    fills: list[cst.BaseExpression] = []
    for statement in func.body.body if isinstance(func.body, cst.IndentedBlock) else ():
        if isinstance(statement, cst.If) and statement.orelse is None and _tests_none(statement.test, owner, attr):
            fills.extend(_self_assignments(statement.body.body, owner, attr))
        elif isinstance(statement, cst.SimpleStatementLine):
            fills.extend(_self_assignments([statement], owner, attr))
    return fills[0] if len(fills) == 1 else None


def _tests_none(test: cst.BaseExpression, owner: str, attr: str) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target, (comparison,) = test.left, test.comparisons
    return (
        _is_self_attribute(target, owner, attr)
        and isinstance(comparison.operator, cst.Is)
        and isinstance(comparison.comparator, cst.Name)
        and comparison.comparator.value == "None"
    )


def _self_assignments(statements: Sequence[cst.CSTNode], owner: str, attr: str) -> list[cst.BaseExpression]:
    return [
        small.value
        for statement in statements
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and _is_self_attribute(small.targets[0].target, owner, attr)
    ]


def _is_self_attribute(node: cst.BaseExpression, owner: str, attr: str) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == owner
        and node.attr.value == attr
    )


def _declared_default(declared: cst.BaseExpression) -> cst.BaseExpression:
    """A dataclass field declared by a call that names its default (`field(default=6)`, a
    validating helper `positive_int_field(default=6)`): the default is that keyword's value,
    whatever the helper's own body does with it."""
    if isinstance(declared, cst.Call):
        for arg in declared.args:
            if arg.keyword is not None and arg.keyword.value == "default":
                return arg.value
    return declared


def _sub_config(interp: "Interpreter", fields: ClassInfo, attr: str, ctx: "Ctx") -> Opaque | None:
    """A sub-config field the config's library base fills after construction when it is left
    None (`sub_configs_defaults = {"text_config": XTextConfig}`): the config of the class it maps
    to, with that class's defaults, or a bare symbol where the class is chosen at run time
    (`AutoConfig`). None where the table does not name the field or lets it stay None."""
    table_name = interp.knowledge.sub_config_table(interp.index.base_chain(fields))
    owner = next((cls for cls in interp.index.mro(fields) if table_name in cls.attributes), None)
    if owner is None or table_name is None:
        return None
    table = owner.attributes[table_name]
    spec = _table_entry(table, attr) if isinstance(table, cst.Dict) else None
    if isinstance(spec, cst.Call):
        # `SubConfigSpec(config_class=..., optional=True)`: an optional one may stay None.
        keywords = {a.keyword.value: a.value for a in spec.args if a.keyword is not None}
        optional = keywords.get("optional")
        if optional is not None and not (isinstance(optional, cst.Name) and optional.value == "False"):
            return None
        positional = [a.value for a in spec.args if a.keyword is None]
        spec = keywords.get("config_class", positional[0] if positional else None)
    if spec is None:
        return None
    found = spec
    built = interp.inside(owner, lambda: interp.eval(found, Env(), ctx))
    if isinstance(built, ClassRef) and not interp.index.is_module_class(built.cls):
        return Opaque(attr, fields=built.cls)
    return Opaque(attr)


def _factory_config(interp: "Interpreter", fields: ClassInfo, attr: str, ctx: "Ctx") -> Opaque | None:
    """A nested config a dataclass field builds by default (`mlp: MlpConfig =
    field(default_factory=MlpConfig)`): that config with its own defaults. None for any other field."""
    declared = fields.attributes.get(attr)
    factory = next(
        (
            arg.value
            for arg in (declared.args if isinstance(declared, cst.Call) else ())
            if arg.keyword is not None and arg.keyword.value == "default_factory"
        ),
        None,
    )
    if factory is None:
        return None
    built = interp.inside(fields, lambda: interp.eval(factory, Env(), ctx))
    if isinstance(built, ClassRef) and not interp.index.is_module_class(built.cls):
        return Opaque(attr, fields=built.cls)
    return None


def _table_entry(table: cst.Dict, key: str) -> cst.BaseExpression | None:
    for element in table.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            if element.key.evaluated_value == key:
                return element.value
    return None


def _has_field(fields: ClassInfo, attr: str) -> bool:
    return attr in fields.init_fields() or attr in fields.attributes


def declares_field(base: Any, attr: str) -> bool:
    """Whether `base` is a config of a class of the code that declares the field `attr`."""
    return isinstance(base, Opaque) and base.fields is not None and _has_field(base.fields, attr)


def _init_defaults(interp: "Interpreter", fields: ClassInfo, ctx: "Ctx") -> Env:
    """The names a plain config class's `__init__` stores from: its parameters at their defaults
    (`init_config if init_config is not None else copy.deepcopy(DEFAULTS)`)."""
    init = fields.methods["__init__"]
    env = Env()
    for param in (*init.params.params, *init.params.kwonly_params)[1:]:
        if param.default is not None:
            env.names[param.name.value] = interp.eval(param.default, Env(), ctx)
    return env


def _tensor_attr(interp: "Interpreter", base: ParamRef | NewTensor, attr: str) -> Any:
    if attr in RANK_ATTRIBUTES:
        return tensor_rank(base)
    if attr in SHAPE_ATTRIBUTES:
        return tensor_shape(base)
    if (
        attr in (*RANK_METHODS, *SHAPE_METHODS)
        or VALUE_KEEPING_METHODS.get(attr, False)
        or interp.knowledge.tensor_method(attr) is not None
    ):
        return BoundMethod(base, attr)
    return Opaque(attr)


def tensor_rank(tensor: ParamRef | NewTensor) -> Any:
    ndim = tensor.param.ndim if isinstance(tensor, ParamRef) else None
    return Const(ndim) if ndim is not None else UNKNOWN


def tensor_shape(tensor: ParamRef | NewTensor) -> Any:
    """A sequence of unknown sizes whose length is the tensor's rank, where that is known; a layer's
    parameter names its sizes as the layer does (`weight.shape[1]` of a Linear is `in_features`)."""
    if isinstance(tensor, ParamRef) and tensor.param.dims and len(tensor.param.dims) == tensor.param.ndim:
        return Seq([Opaque(size) for size in tensor.param.dims])
    rank = tensor_rank(tensor)
    return Seq([UNKNOWN] * rank.value) if isinstance(rank, Const) else UNKNOWN


def tensor_size(tensor: ParamRef | NewTensor, args: list[Any]) -> Any:
    """`w.size()`, the shape; `w.size(1)`, one of its sizes."""
    shape = tensor_shape(tensor)
    if not args:
        return shape
    index = as_index(args[0])
    index = index.value if isinstance(index, Const) else None
    if isinstance(shape, Seq) and type(index) is int and -len(shape.items) <= index < len(shape.items):
        return shape.items[index]
    return UNKNOWN


def _on_each_arm(found: Any, others: list[Any]) -> Any:
    """An attribute read on a module that is one of those the arms of an undecided `if` built
    (`layer.ff` where `ff` is `GeluFeedForward` or `GatedFeedForward`): the part, parameter or
    module method of each, so that an init through it (`layer.ff.proj.weight`) reaches every class
    the choice may build. A part only some of them have (`layer.proj` where only the attention
    kind holds one) is theirs: code reading it runs on those. Values of other kinds are the first
    arm's, as before."""
    if isinstance(found, Opaque) and others:
        having = [other for other in others if not isinstance(other, Opaque)]
        if having and all(isinstance(other, (ModRef, ParamRef)) for other in having):
            found, others = having[0], having[1:]
    if not others:
        return found
    if isinstance(found, ModRef) and all(isinstance(other, ModRef) for other in others):
        nodes = [node for other in others for node in (other.node, *other.others)]
        return ModRef(found.node, _distinct(found.node, (*found.others, *nodes)))
    if isinstance(found, ParamRef) and all(isinstance(other, ParamRef) for other in others):
        params = [param for other in others for param in other.all_params()]
        return ParamRef(found.param, _distinct(found.param, (*found.others, *params)))
    if (
        isinstance(found, BoundMethod)
        and isinstance(found.receiver, ModRef)
        and all(isinstance(o, BoundMethod) and o.name == found.name and isinstance(o.receiver, ModRef) for o in others)
    ):
        return BoundMethod(_on_each_arm(found.receiver, [other.receiver for other in others]), found.name)
    return found


def _distinct(first: Any, items: tuple[Any, ...]) -> tuple[Any, ...]:
    kept: list[Any] = []
    for item in items:
        if item is not first and all(item is not seen for seen in kept):
            kept.append(item)
    return tuple(kept)


def module_attr(interp: "Interpreter", node: ModuleNode, attr: str, ctx: "Ctx") -> Any:
    if attr in node.children:
        return ModRef(node.children[attr], node.children[attr].with_alternatives()[1:])
    if attr in node.params:
        return ParamRef(node.params[attr])
    if attr in node.attrs:
        return node.attrs[attr]
    if node.cls is not None:
        found = interp.index.find_method(node.cls, attr)
        if found is not None and is_property(found[1]):
            # `self.block_class` is the value its getter returns, read afresh at each access.
            return interp.call_function(FuncRef(found[1], found[0], ModRef(node)), [], {}, ctx)
        if found is not None:
            return method_ref(found[1], found[0], ModRef(node), ClassRef(node.cls))
        for cls_name in [node.cls.name] + interp.index.base_chain(node.cls):
            cls = interp.index.classes.get(cls_name)
            if cls is not None and attr in cls.attributes:
                return interp.eval(cls.attributes[attr], Env(), ctx)
    if attr in MODULE_METHOD_HANDLERS or attr in interp.knowledge.init_entry_points():
        return BoundMethod(ModRef(node), attr)
    if attr in ("weight", "bias") and node.kind == "unknown":
        # A layer of a type we cannot see: its parameters exist, their init is unknown.
        param = node.params[attr] = Param(attr, node)
        param.ops.append(
            InitOp(
                "unknown",
                None,
                node.created_at,
                (f"{node.type_name}'s own init",),
                False,
                f"{node.type_name}'s own init",
            )
        )
        return ParamRef(param)
    if attr in ("weight", "bias") and node.kind in ("linear", "conv", "embedding", "norm"):
        return Const(None)  # `bias=False`
    return Opaque(attr)


PROPERTY_DECORATORS = frozenset({"property", "cached_property"})


def is_property(func: cst.FunctionDef) -> bool:
    """A getter (`@property`, `@functools.cached_property`): reading the name runs it."""
    for decorator in func.decorators:
        target = decorator.decorator
        name = (
            target.value
            if isinstance(target, cst.Name)
            else target.attr.value
            if isinstance(target, cst.Attribute)
            else None
        )
        if name in PROPERTY_DECORATORS:
            return True
    return False


def method_ref(func: cst.FunctionDef, owner: ClassInfo, instance: Any, cls: ClassRef) -> FuncRef:
    """A method looked up on an instance or a class: a class method binds the class (a block
    factory `Block.build(i, config)` returns `cls(...)`), a static method binds nothing."""
    decorators = {d.decorator.value for d in func.decorators if isinstance(d.decorator, cst.Name)}
    if "classmethod" in decorators:
        return FuncRef(func, owner, cls)
    if "staticmethod" in decorators:
        return FuncRef(func)
    return FuncRef(func, owner, instance)


def super_attr(interp: "Interpreter", ref: SuperRef, attr: str) -> Any:
    for base in ref.cls.bases:
        # The base may be defined in another file of the project: its own module reads its name.
        local = interp.index.read_base(ref.cls, base)
        if local is not None:
            found = interp.index.find_method(local, attr)
            if found is not None:
                return FuncRef(found[1], found[0], ref.instance)
    return BoundMethod(ref, attr)

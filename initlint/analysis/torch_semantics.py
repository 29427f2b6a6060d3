"""PyTorch (and Hugging Face) semantics for the interpreter: layers and their
parameters, `nn.init` and in-place tensor init, `apply`, `named_parameters`,
`isinstance` against layer classes, flag attributes, and `post_init()`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    ClassRef,
    Const,
    EnumMember,
    Env,
    ExtRef,
    FuncRef,
    Lambda,
    Mapping,
    ModRef,
    NewTensor,
    Num,
    Opaque,
    ParamRef,
    Registry,
    Seq,
    SuperRef,
    as_number,
    merge_uncertain,
)
from initlint.analysis.construction import add_container_children
from initlint.analysis.index import PRETRAINED_NAME_ENDINGS, ClassInfo
from initlint.analysis.knowledge.conventions import DELIBERATE_CONFIG_NAMES, GRAD_MODES, HARMLESS_CALLS
from initlint.analysis.knowledge.huggingface import GENERIC_INIT, GENERIC_INIT_STD
from initlint.analysis.knowledge.torch_init import (
    NORMAL,
    RANK_ATTRIBUTES,
    RANK_METHODS,
    SHAPE_ATTRIBUTES,
    SHAPE_METHODS,
)
from initlint.analysis.layers import isinstance_by_name, layer_type
from initlint.analysis.model import InitOp, ModuleNode, Param
from initlint.analysis.init_ops import make_init_method, record_init
from initlint.analysis.python_semantics import (
    ENUM_BASES,
    MIXED_ENUM_BASES,
    Builtin,
    BoundMethod,
    call_python_builtin,
    config_entry,
    string_method,
)
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter

_HF_STD = Monomial.atom(GENERIC_INIT_STD)


# --------------------------------------------------------------- attributes
def get_attr(interp: "Interpreter", base: Any, attr: str, ctx: "Ctx") -> Any:
    if isinstance(base, ExtRef):
        return ExtRef(f"{base.name}.{attr}")
    if isinstance(base, ModRef):
        return module_attr(interp, base.node, attr, ctx)
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
        return BoundMethod(base, attr)
    if isinstance(base, Opaque) and attr == "get":
        return BoundMethod(base, attr)  # `config.get("n_layer", 12)` on a dict config
    if isinstance(base, Opaque) and base.fields is not None and _has_field(base.fields, attr):
        fields = base.fields
        return interp.inside(fields, lambda: _field_default(interp, fields, attr, ctx))
    if attr in DELIBERATE_CONFIG_NAMES:
        interp.deliberate_scheme = DELIBERATE_CONFIG_NAMES[attr]
    return Opaque(attr)


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


def _field_default(interp: "Interpreter", fields: ClassInfo, attr: str, ctx: "Ctx") -> Any:
    """A dataclass config's field by its default: a flag (`use_moe: bool = False`) or an enum
    member (`init_fn: InitFnType = InitFnType.normal`) decides as the default config does; a
    string is kept as a root's string default is, and compares as its default; a number stays the symbol it is named by (depth
    and widths keep their meaning), compared by its default."""
    sub_config = _sub_config(interp, fields, attr, ctx)
    if sub_config is not None:
        return sub_config
    stored = fields.init_fields().get(attr)
    expr = stored if stored is not None else fields.attributes[attr]
    value = interp.eval(expr, _init_defaults(interp, fields, ctx) if stored is not None else Env(), ctx)
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


def _table_entry(table: cst.Dict, key: str) -> cst.BaseExpression | None:
    for element in table.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            if element.key.evaluated_value == key:
                return element.value
    return None


def _has_field(fields: ClassInfo, attr: str) -> bool:
    return attr in fields.init_fields() or attr in fields.attributes


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
        return _rank(base)
    if attr in SHAPE_ATTRIBUTES:
        return _shape(base)
    if attr in RANK_METHODS or attr in SHAPE_METHODS or interp.knowledge.tensor_method(attr) is not None:
        return BoundMethod(base, attr)
    return Opaque(attr)


def _rank(tensor: ParamRef | NewTensor) -> Any:
    ndim = tensor.param.ndim if isinstance(tensor, ParamRef) else None
    return Const(ndim) if ndim is not None else UNKNOWN


def _shape(tensor: ParamRef | NewTensor) -> Any:
    """A sequence of unknown sizes whose length is the tensor's rank, where that is known."""
    rank = _rank(tensor)
    return Seq([UNKNOWN] * rank.value) if isinstance(rank, Const) else UNKNOWN


def module_attr(interp: "Interpreter", node: ModuleNode, attr: str, ctx: "Ctx") -> Any:
    if attr in node.children:
        return ModRef(node.children[attr])
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


def _stores_only(value: cst.BaseExpression | None) -> bool:
    """`wo`, `self.blocks`, `attn, mlp`: names of things made before, nothing made here."""
    if isinstance(value, cst.Tuple):
        return all(_stores_only(element.value) for element in value.elements)
    return isinstance(value, (cst.Name, cst.Attribute))


def set_module_attr(
    interp: "Interpreter", node: ModuleNode, name: str, value: Any, ctx: "Ctx", stmt: cst.CSTNode
) -> None:
    ctx = ctx.toward(node)
    if isinstance(value, ModRef):
        child = value.node
        if child.parent is not None or child is node or _plain_object(interp, child):
            # An alias of a module registered elsewhere, or an object `nn.Module.__setattr__`
            # keeps as a plain attribute: neither is a submodule.
            node.attrs[name] = value
            return
        if not ctx.certain and name in node.children and node.children[name] is not child:
            node.add_alternative(name, child)  # the other arm of an undecided `if`
        else:
            node.add_child(name, child)
            child.optional = not ctx.certain and node.built_certain
        for other in value.others:
            node.add_alternative(name, other).repeat = ctx.repeat or other.repeat
        # `self.wo = nn.Linear(...)` builds the layer; `self.wo = wo` stores one built before (a
        # constructor argument made by a builder function): its construction stays where it was.
        if isinstance(stmt, (cst.Assign, cst.AnnAssign)) and not (_stores_only(stmt.value) and child.created_at):
            child.created_at = stmt
        if ctx.repeat is not None:
            child.repeat = ctx.repeat
        return
    if isinstance(value, ParamRef):
        node.params[name] = value.param  # weight tying: both names share one tensor
        return
    if isinstance(value, NewTensor):
        param = Param(name, node, ndim=_factory_ndim(value.op.node))
        param.ops.append(value.op)
        node.params[name] = param
        return
    if name in node.params and isinstance(value, Const) and value.value is None:
        del node.params[name]
        return
    node.attrs[name] = merge_uncertain(node.attrs, name, value, ctx)


#: Tensor factories whose positional arguments are the sizes (`torch.empty(n_experts, d, h)`).
_SIZED_FACTORIES = frozenset({"empty", "zeros", "ones", "randn", "rand"})


def _factory_ndim(call: cst.CSTNode | None) -> int | None:
    """How many dimensions a fresh tensor has, where its factory call spells out the sizes."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
        return None
    if call.func.attr.value not in _SIZED_FACTORIES:
        return None
    sizes = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in sizes) or not sizes:
        return None
    if len(sizes) == 1 and isinstance(sizes[0].value, (cst.Tuple, cst.List)):
        return len(sizes[0].value.elements)
    return len(sizes)


def _plain_object(interp: "Interpreter", node: ModuleNode) -> bool:
    """An instance of a class of the project with no base but `object` (a helper holding
    buffers): not an `nn.Module`, so its tensors are no model's parameters."""
    return node.cls is not None and all(
        base in ("object", "builtins.object") for base in interp.index.base_chain(node.cls)
    )


# ------------------------------------------------------------- isinstance
def _node_isinstance(interp: "Interpreter", node: ModuleNode, target: Any) -> bool | None:
    if isinstance(target, ClassRef):
        if node.cls is None:
            return False if node.kind != "unknown" else None
        return target.cls.name == node.cls.name or target.cls.name in interp.index.base_chain(node.cls)
    if not isinstance(target, ExtRef):
        return None
    last = target.name.rsplit(".", 1)[-1]
    if last == "Module":
        return True
    if node.cls is not None:
        chain = interp.index.base_chain(node.cls)
        # a class of another file of the project is no external base, though this file's
        # index does not hold it
        external = interp.index.unread_bases(node.cls)
        if target.name in chain or any(base.rsplit(".", 1)[-1] == last for base in external):
            return True
        if all(
            b.rsplit(".", 1)[-1] == "Module"
            or layer_type(interp.knowledge, b) is not None
            or b.endswith(PRETRAINED_NAME_ENDINGS)
            for b in external
        ):
            return False
        return None
    known = layer_type(interp.knowledge, node.type_name)
    if known is not None:
        if isinstance_by_name(known, last):
            return True
        if _norm_by_name_only(interp, node, last):
            return None
        if interp.knowledge.is_known_class_name(last) or last == node.type_name.rsplit(".", 1)[-1]:
            return False
        return None
    if node.kind == "unknown" and target.name == node.type_name:
        return True
    return None


def _norm_by_name_only(interp: "Interpreter", node: ModuleNode, class_name: str) -> bool:
    """A norm known only by its name (`FusedLayerNorm` from elsewhere) tested against another
    norm class: it may well subclass `nn.LayerNorm`, its bases are not in sight."""
    if interp.knowledge.layer(node.type_name) is not None:
        return False
    other = layer_type(interp.knowledge, class_name)
    return other is not None and other.kind == "norm"


def isinstance_of(interp: "Interpreter", value: Any, classes: Any) -> Any:
    if isinstance(classes, ExtRef) and classes.name == "builtins.type":
        return _is_class_object(interp, value)
    if not isinstance(value, ModRef):
        if isinstance(value, (ParamRef, Num, Const, Seq, Mapping)) and isinstance(classes, (ClassRef, ExtRef)):
            last = classes.cls.name if isinstance(classes, ClassRef) else classes.name.rsplit(".", 1)[-1]
            if last in ("Linear", "Embedding", "LayerNorm", "Module", "Conv1D") or isinstance(classes, ClassRef):
                return Const(False)
        return UNKNOWN
    targets = classes.items if isinstance(classes, Seq) and classes.repeat is None else [classes]
    results = [_node_isinstance(interp, value.node, target) for target in targets]
    if True in results:
        return Const(True)
    return Const(False) if all(r is False for r in results) else UNKNOWN


def _is_class_object(interp: "Interpreter", value: Any) -> Any:
    """`isinstance(x, type)`: a class of the code, or a layer class the registry knows, is one."""
    if isinstance(value, ClassRef) or isinstance(value, ExtRef) and layer_type(interp.knowledge, value.name):
        return Const(True)
    return Const(False) if isinstance(value, (FuncRef, Lambda, Const, Num, Seq, Mapping, ModRef)) else UNKNOWN


def attribute_probe(interp: "Interpreter", name: str, args: list[Any], ctx: "Ctx") -> Any:
    """`hasattr(module, "NANOGPT_SCALE_INIT")`, `getattr(module, "FLAG", False)`."""
    target, attr = args[0], str(args[1].value)
    if not isinstance(target, ModRef):
        return UNKNOWN if name == "hasattr" else (args[2] if len(args) > 2 and isinstance(target, Const) else UNKNOWN)
    node = target.node
    present = attr in node.attrs or attr in node.children or attr in node.params
    if (
        not present
        and node.cls is not None
        and any(
            attr in interp.index.classes[c].attributes
            for c in [node.cls.name] + interp.index.base_chain(node.cls)
            if c in interp.index.classes
        )
    ):
        present = True
    if name == "hasattr":
        if present:
            return Const(True)
        if attr in ("weight", "bias") and node.kind == "unknown":
            return UNKNOWN
        return Const(False) if attr.isupper() or node.kind != "unknown" else UNKNOWN
    if present:
        return module_attr(interp, node, attr, ctx)
    if len(args) > 2:
        return args[2] if attr.isupper() or node.kind != "unknown" else UNKNOWN
    return UNKNOWN


# -------------------------------------------------------------------- calls
def call_external(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any:
    short = name[len("builtins.") :] if name.startswith("builtins.") else name
    last = name.rsplit(".", 1)[-1]
    spec = interp.knowledge.init_function(name)
    if spec is None and (name in interp.options.init_helpers or last in interp.options.init_helpers):
        spec = NORMAL
    if spec is not None:
        target = args[0] if args else kwargs.get("tensor", UNKNOWN)
        if isinstance(target, (ParamRef, NewTensor)):
            return record_init(interp, target, spec, args, kwargs, ctx, call, last)
    method_factory = interp.knowledge.init_method_factory(name)
    if method_factory is not None:
        return make_init_method(interp, method_factory, args, kwargs, call)
    if last == "Parameter":
        value = args[0] if args else kwargs.get("data", UNKNOWN)
        if isinstance(value, (NewTensor, ParamRef)):
            return value
        return NewTensor(InitOp("unknown", None, call, ctx.via, False, "nn.Parameter(...)"))
    factory = interp.knowledge.tensor_factory(name)
    if factory is not None:
        std = Monomial.of(factory.std) if factory.std is not None else None
        return NewTensor(InitOp(factory.kind, std, call, ctx.via, ctx.certain, f"torch.{last}(...)"))
    known = layer_type(interp.knowledge, name)
    if known is not None:
        return interp.construct_layer(name, known, args, kwargs, call, ctx)
    builtin = call_python_builtin(
        interp,
        short if short in ("object.__setattr__",) or "." not in short else _stdlib_name(short),
        args,
        kwargs,
        ctx,
        call,
        MODULE_AWARE_BUILTINS,
    )
    if builtin is not None:
        return builtin
    if last in GRAD_MODES:
        return Const(None)
    if last[:1].isupper() and not name.startswith(("torch.", "math.", "numpy.")):
        # A layer class from elsewhere: a module whose parameters we cannot see.
        return interp.construct_layer(name, None, args, kwargs, call, ctx)
    if last not in HARMLESS_CALLS:
        interp.mark_unknown_targets(args, kwargs, ctx, call, f"{last}() from elsewhere")
    return UNKNOWN


def _stdlib_name(name: str) -> str:
    head, _, last = name.rpartition(".")
    if head in ("math", "numpy", "np", "torch", "jax.numpy") and last in ("sqrt", "pow", "rsqrt", "exp", "log"):
        return last
    return name


def call_method(
    interp: "Interpreter", method: BoundMethod, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any:
    receiver, name = method.receiver, method.name
    if isinstance(receiver, (ParamRef, NewTensor)):
        if name in RANK_METHODS:
            return _rank(receiver)
        if name in SHAPE_METHODS:
            return UNKNOWN if args or kwargs else _shape(receiver)
        spec = interp.knowledge.tensor_method(name)
        if spec is None:
            return UNKNOWN
        return record_init(interp, receiver, spec, args, kwargs, ctx, call, name, _fill_kind(spec.kind, args))
    if isinstance(receiver, ModRef):
        return module_method(interp, receiver.node, name, args, kwargs, ctx, call)
    if isinstance(receiver, Const) and isinstance(receiver.value, str):
        return string_method(receiver.value, name, args)
    if isinstance(receiver, Seq) and name in ("append", "extend"):
        items = args[0].items if name == "extend" and args and isinstance(args[0], Seq) else args[:1]
        receiver.items.extend(items)
        if ctx.repeat is not None and receiver.repeat is None and not receiver.items[: -len(items) or None]:
            receiver.repeat = ctx.repeat
        return Const(None)
    if isinstance(receiver, (Mapping, Opaque)) and name == "get" and args:
        return config_entry(interp, receiver, args[0], args[1] if len(args) > 1 else Const(None))
    if isinstance(receiver, Mapping) and name in ("items", "keys", "values", "pop", "copy"):
        return mapping_method(receiver, name, args)
    if isinstance(receiver, Registry):
        return registry_method(interp, receiver, name, args, kwargs)
    if isinstance(receiver, SuperRef):
        if name == "__init__" and isinstance(receiver.instance, ModRef):
            _library_container_init(interp, receiver.instance.node, args)
        return _super_method(interp, receiver, name, [*args, *kwargs.values()], ctx, call)
    return UNKNOWN


def _library_container_init(interp: "Interpreter", node: ModuleNode, args: list[Any]) -> None:
    """`super().__init__(*layers)` in a subclass of `nn.Sequential` or `nn.ModuleList`: the
    library's constructor registers the layers as the module's children, as it does when the
    container is built directly; the module iterates them as that container does."""
    if node.cls is None or node.children:
        return
    for base in interp.index.base_chain(node.cls):
        known = layer_type(interp.knowledge, base) if base not in interp.index.classes else None
        if known is not None and known.kind in ("container", "sequential"):
            node.kind = known.kind
            add_container_children(node, known.kind, args)
            return


def _super_method(
    interp: "Interpreter", receiver: SuperRef, name: str, args: list[Any], ctx: "Ctx", call: cst.Call
) -> Any:
    """`super().__init__(...)` or `super()._init_weights(m)` on a base initlint cannot read."""
    if name == "_init_weights" and args and isinstance(args[0], ModRef):
        hf_generic_init(interp, args[0].node, ctx, call)
    if name == "__init__" and isinstance(receiver.instance, ModRef):
        _layer_base_init(interp, receiver.instance.node, ctx)
        _store_init_argument(interp, receiver.instance.node, args)
        _handed_to_unseen_base(interp, args)
    return Const(None)


def mapping_method(mapping: Mapping, name: str, args: list[Any]) -> Any:
    """A dict's views, `pop(key[, default])` (the entry leaves the dict) and `copy()`."""
    if name == "items":
        return Seq([Seq([Const(k), v]) for k, v in mapping.items.items()])
    if name in ("keys", "values"):
        return Seq([Const(k) for k in mapping.items] if name == "keys" else list(mapping.items.values()))
    if name == "copy":
        return Mapping(dict(mapping.items))
    key = args[0] if args else UNKNOWN
    if isinstance(key, Const) and key.value in mapping.items:
        return mapping.items.pop(key.value)
    return args[1] if len(args) > 1 and isinstance(key, Const) else UNKNOWN


def registry_method(
    interp: "Interpreter", registry: Registry, name: str, args: list[Any], kwargs: dict[Any, Any]
) -> Any:
    """`registry.get(name)` is what the project registered under that name; `get_all()` all of it."""
    entries = interp.registry_entries(registry)
    if name == "get_all" and not args:
        return Mapping(dict(entries))
    key = args[0] if args else kwargs.get("name", UNKNOWN)
    if isinstance(key, Opaque) and key.default is not None:
        key = Const(key.default)  # a root's string parameter picks the entry its default names
    if name in ("get", "__getitem__") and isinstance(key, Const) and key.value in entries:
        return entries[key.value]
    return UNKNOWN


def _handed_to_unseen_base(interp: "Interpreter", values: list[Any]) -> None:
    """A model built only to be handed to a base class initlint cannot read (a training wrapper's
    `super().__init__(model=model)`): where the base keeps it is unknown, so the model stays a
    root of its own instead of vanishing into a wrapper without parameters."""
    for value in values:
        if isinstance(value, ModRef) and value.node.parent is None and value.node.cls is not None:
            interp.instantiated.discard(value.node.cls.name)


def _fill_kind(kind: str, args: list[Any]) -> str:
    """`fill_(1.0)` is a ones init and `fill_(0)` a zeros init: rules treat those two apart."""
    value = as_number(args[0]) if kind == "constant" and args else None
    if value is None or not value.is_constant or value.const not in (0, 1):
        return kind
    return "ones" if value.const == 1 else "zeros"


def _store_init_argument(interp: "Interpreter", node: ModuleNode, args: list[Any]) -> None:
    """A library base that keeps its first argument (`PreTrainedModel.__init__(config)` sets
    `self.config`): the config the model's init methods read later."""
    if node.cls is None or not args:
        return
    name = interp.knowledge.stored_init_argument(interp.index.base_chain(node.cls))
    if name is not None and name not in node.attrs and name not in node.children:
        node.attrs[name] = args[0]


def _layer_base_init(interp: "Interpreter", node: ModuleNode, ctx: "Ctx") -> None:
    """`super().__init__()` of an `nn.Linear` subclass ends by calling `self.reset_parameters()`,
    which runs the subclass's override if it has one."""
    if node.cls is None or node.kind == "module":
        return
    found = interp.index.find_method(node.cls, "reset_parameters")
    if found is not None:
        owner, func = found
        interp.call_function(
            FuncRef(func, owner, ModRef(node)), [], {}, replace_via(ctx, f"{owner.name}.reset_parameters")
        )


def module_method(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    handler = MODULE_METHOD_HANDLERS.get(name)
    if handler is None and name in interp.knowledge.init_entry_points():
        handler = _init_entry_point
    return handler(interp, node, name, args, kwargs, ctx, call) if handler is not None else UNKNOWN


def _apply(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    fn = args[0] if args else UNKNOWN
    via = ctx.via + (interp.code(call),)
    if isinstance(fn, FuncRef):
        via += (f"{fn.owner.name}.{fn.func.name.value}" if fn.owner else fn.func.name.value,)
    for module in list(node.post_order()):
        if isinstance(fn, (FuncRef, Lambda)):
            interp.call_value(fn, [ModRef(module)], {}, replace(ctx, via=via), call)
        else:
            interp.mark_unknown_targets([ModRef(node)], {}, ctx, call, "an init function initlint cannot see")
            break
    return ModRef(node)


def _named_parameters(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    seen: set[int] = set()
    items = []
    for pname, param in node.named_parameters():
        if id(param) not in seen:
            seen.add(id(param))
            items.append(Seq([Const(pname), ParamRef(param)]))
    return Seq(items)


def _parameters(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    return Seq([item.items[1] for item in _named_parameters(interp, node, name, [], {}, ctx, call).items])


def _modules(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    pairs = list(node.named_modules())
    return Seq([ModRef(m) if name == "modules" else Seq([Const(n), ModRef(m)]) for n, m in pairs])


def _container_view(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    """`values()`, `keys()`, `items()` of a ModuleDict (or a ModuleList of repeated blocks)."""
    if node.kind not in ("container", "sequential"):
        return UNKNOWN
    children = list(node.children.items())
    repeat = children[0][1].repeat if len(children) == 1 else None
    if name == "values":
        return Seq([ModRef(c) for _, c in children], repeat)
    if name == "keys":
        return Seq([Const(n) for n, _ in children], repeat)
    return Seq([Seq([Const(n), ModRef(c)]) for n, c in children], repeat)


def _children(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    return Seq([ModRef(c) if name == "children" else Seq([Const(n), ModRef(c)]) for n, c in node.children.items()])


def _get_submodule(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    """`model.get_submodule("layers.0.mlp")`: the module `named_modules()` lists under that name
    (a name that two alternatives of an undecided `if` share stays unknown)."""
    target = args[0] if args else kwargs.get("target")
    if not isinstance(target, Const) or not isinstance(target.value, str):
        return UNKNOWN
    found = [module for path, module in node.named_modules() if path == target.value]
    return ModRef(found[0]) if len(found) == 1 else UNKNOWN


def _reset_parameters(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    known = layer_type(interp.knowledge, node.type_name)
    if known is not None:
        interp.add_default_params(node, known, {}, ctx)
    return Const(None)


def _init_entry_point(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    if node.cls is None or not interp.index.is_hf_pretrained(node.cls):
        return UNKNOWN
    hf_init(interp, node, ctx, call)
    return Const(None)


def _register_children(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    """`append`, `extend`, `add_module(name, m)`, `register_module(name, m)`."""
    node.slots = None  # keys now follow the children found, not the entries written
    values = args[-1:] if name != "extend" else (args[0].items if args and isinstance(args[0], Seq) else [])
    for value in values:
        key = (
            str(args[0].value)
            if name != "append" and name != "extend" and isinstance(args[0], Const)
            else str(len(node.children))
        )
        set_module_attr(interp, node, key, value, ctx, call)
    return Const(None)


def _update_children(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    """`ModuleDict.update(dict(h=...))`: registers each entry as `module[key] = value` would."""
    if node.kind != "container":
        return UNKNOWN
    source = args[0] if args else None
    entries = dict(source.items) if isinstance(source, Mapping) else {}
    if isinstance(source, Seq) and source.repeat is None:
        entries = {pair.items[0].value: pair.items[1] for pair in source.items if _is_pair(pair)}
    entries.update(kwargs)
    for key, value in entries.items():
        set_module_attr(interp, node, str(key), value, ctx, call)
    return Const(None)


def _is_pair(value: Any) -> bool:
    return isinstance(value, Seq) and len(value.items) == 2 and isinstance(value.items[0], Const)


def _register_parameter(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    if len(args) == 2 and isinstance(args[0], Const):
        set_module_attr(interp, node, str(args[0].value), args[1], ctx, call)
        return Const(None)
    return UNKNOWN


def _same_module(
    interp: "Interpreter",
    node: ModuleNode,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    """`.to(device)`, `.float()`, `.train()`: the module itself, its init untouched."""
    return ModRef(node)


ModuleMethod = Callable[["Interpreter", ModuleNode, str, list[Any], dict[Any, Any], "Ctx", cst.Call], Any]
#: `nn.Module` methods the interpreter follows (the init entry points come from the registry).
MODULE_METHOD_HANDLERS: dict[str, ModuleMethod] = {
    "apply": _apply,
    "named_parameters": _named_parameters,
    "parameters": _parameters,
    "modules": _modules,
    "named_modules": _modules,
    "values": _container_view,
    "keys": _container_view,
    "items": _container_view,
    "children": _children,
    "named_children": _children,
    "reset_parameters": _reset_parameters,
    "get_submodule": _get_submodule,
    "append": _register_children,
    "extend": _register_children,
    "add_module": _register_children,
    "register_module": _register_children,
    "update": _update_children,
    "register_parameter": _register_parameter,
    **{
        name: _same_module
        for name in ("to", "cuda", "float", "half", "bfloat16", "requires_grad_", "train", "eval", "type")
    },
}


def hf_init(interp: "Interpreter", node: ModuleNode, ctx: "Ctx", call: cst.CSTNode) -> None:
    """`post_init()`: transformers applies `_init_weights` to every module, children first."""
    found = interp.index.find_method(node.cls, "_init_weights") if node.cls is not None else None
    via = ctx.via + (interp.code(call),)
    inner = replace(ctx, via=via)
    for module in list(node.post_order()):
        if module.hf_initialized:
            continue  # transformers marks what an inner model's post_init() already did
        module.hf_initialized = True
        if found is not None:
            owner, func = found
            interp.call_function(
                FuncRef(func, owner, ModRef(node)),
                [ModRef(module)],
                {},
                replace_via(inner, f"{owner.name}._init_weights"),
            )
        else:
            hf_generic_init(interp, module, inner, call)


def replace_via(ctx: "Ctx", step: str) -> "Ctx":
    return replace(ctx, via=ctx.via + (step,))


def hf_generic_init(interp: "Interpreter", node: ModuleNode, ctx: "Ctx", call: cst.CSTNode) -> None:
    """transformers' PreTrainedModel._init_weights: normal(initializer_range) for linears and embeddings."""
    ctx = ctx.toward(node)
    via = ctx.via + ("transformers PreTrainedModel._init_weights",)
    plan = dict(GENERIC_INIT.get(node.kind, ()))
    for pname, param in node.params.items():
        kind = plan.get(pname, plan.get("*"))
        if kind is None:
            continue
        std = _HF_STD if kind == "normal" else Monomial.of(0.0)
        label = "transformers' generic normal_(std=config.initializer_range)" if kind == "normal" else "zeros_"
        param.ops.append(
            InitOp(kind, std, call, via, ctx.certain, "ones_/zeros_" if node.kind == "norm" else label, ctx.arm)
        )


# Builtins whose answer depends on what a module is: the Python layer consults them through
# `call_python_builtin(..., extra=...)` without importing this module.
def _isinstance(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    return isinstance_of(interp, args[0], args[1]) if len(args) == 2 else None


def _attribute_probe(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if len(args) >= 2 and isinstance(args[1], Const):
        return attribute_probe(interp, name, args, ctx)
    return None


def _setattr(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if len(args) == 3 and isinstance(args[1], Const) and isinstance(args[0], ModRef):
        set_module_attr(interp, args[0].node, str(args[1].value), args[2], ctx, call)
        return Const(None)
    return None


MODULE_AWARE_BUILTINS: dict[str, Builtin] = {
    "isinstance": _isinstance,
    "hasattr": _attribute_probe,
    "getattr": _attribute_probe,
    "setattr": _setattr,
    "object.__setattr__": _setattr,
}

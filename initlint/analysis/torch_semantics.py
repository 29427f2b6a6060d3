"""PyTorch (and Hugging Face) semantics for the interpreter, the one door it goes through: calls
of functions from elsewhere (`nn.init`, tensor factories, layer classes, `nn.Parameter`) and of
methods (in-place tensor init, module methods, `super().__init__` into a library base). Reading
and writing attributes live in `torch_attributes.py` and `module_registration.py`, the module
methods in `module_methods.py`, the module-aware builtins in `module_builtins.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    Const,
    ExtPartial,
    FuncRef,
    Mapping,
    ModRef,
    NewTensor,
    Opaque,
    ParamRef,
    Registry,
    Seq,
    SuperRef,
    as_number,
)
from initlint.analysis.index import HF_PRETRAINED_BASES, PRETRAINED_NAME_ENDINGS
from initlint.analysis.init_ops import fill_support, make_init_method, record_init
from initlint.analysis.knowledge.conventions import GRAD_MODES, HARMLESS_CALLS, RETURNS_ARGUMENT
from initlint.analysis.knowledge.torch_init import NORMAL, RANK_METHODS, SHAPE_METHODS, VALUE_KEEPING_METHODS
from initlint.analysis.knowledge.specs import TensorFactory
from initlint.analysis.layers import layer_type
from initlint.analysis.model import InitOp, ModuleNode
from initlint.analysis.module_builtins import MODULE_AWARE_BUILTINS
from initlint.analysis.module_methods import hf_generic_init, module_method, replace_via
from initlint.analysis.python_builtins import call_python_builtin
from initlint.analysis.python_semantics import (
    BoundMethod,
    config_entry,
    extend_list,
    string_default,
    string_default_method,
    string_method,
)
from initlint.analysis.torch_attributes import tensor_rank, tensor_size
from initlint.analysis.values import Monomial

# The interpreter reads and writes attributes through this module too: one door into PyTorch.
from initlint.analysis.module_registration import set_module_attr as set_module_attr
from initlint.analysis.torch_attributes import get_attr as get_attr

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


def call_external(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any:
    short = name[len("builtins.") :] if name.startswith("builtins.") else name
    last = name.rsplit(".", 1)[-1]
    returned = RETURNS_ARGUMENT.get(name)
    if returned is not None and len(args) > returned:
        return args[returned]
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
        return _parameter(args[0] if args else kwargs.get("data", UNKNOWN), call, ctx)
    factory = interp.knowledge.tensor_factory(name)
    if factory is not None:
        return _new_tensor(factory, args, kwargs, ctx, call, last)
    layer = _library_layer(interp, name, args, kwargs, ctx, call)
    if layer is not None:
        return layer
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
    if _generic_init_called_unbound(name, args):
        model = args[0].node if isinstance(args[0], ModRef) else None
        hf_generic_init(interp, args[1].node, ctx, call, model)
        return Const(None)
    if last[:1].isupper() and not name.startswith(("torch.", "math.", "numpy.")):
        # A layer class from elsewhere: a module whose parameters we cannot see.
        return interp.construct_layer(name, None, args, kwargs, call, ctx)
    if last not in HARMLESS_CALLS:
        interp.mark_unknown_targets(args, kwargs, ctx, call, f"{last}() from elsewhere")
    return UNKNOWN


def _new_tensor(
    factory: TensorFactory, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call, last: str
) -> NewTensor:
    """`torch.ones(d)`, `torch.tensor(0.5)`: a fresh tensor, with the value a constant one holds."""
    std = Monomial.of(factory.std) if factory.std is not None else None
    support = fill_support(factory.kind, factory.value, args, kwargs)
    return NewTensor(InitOp(factory.kind, std, call, ctx.via, ctx.certain, f"torch.{last}(...)", support=support))


def _library_layer(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any | None:
    """A library layer built (also by `skip_init(nn.Linear, d, d)`), or the class a layer factory
    hands back with arguments bound (`init, expand, reduce =
    get_init_and_expand_reduce_stream_functions(n, dim=d)`); None for any other name."""
    known = layer_type(interp.knowledge, name)
    if known is not None:
        return interp.construct_layer(name, known, args, kwargs, call, ctx)
    through = interp.knowledge.calls_argument(name)
    if through is not None and through.skips_init and len(args) > through.function:
        return _built_uninitialised(interp, args[through.function], args[through.inputs_from :], kwargs, ctx, call)
    factory = interp.knowledge.layer_factory(name)
    if factory is None:
        return None
    made = ExtPartial(factory.layer, tuple(args[:1]), tuple(kwargs.items()))
    return Seq([made if i == factory.position else UNKNOWN for i in range(factory.returns)], written_as="tuple")


def _built_uninitialised(
    interp: "Interpreter", cls: Any, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any:
    """`skip_init(nn.Linear, d, d)`: the layer the class builds, its parameters left as
    `torch.empty` leaves them (its constructor's own init never runs)."""
    built = interp.call_value(cls, args, kwargs, ctx, call)
    if isinstance(built, ModRef):
        label = f"skip_init({built.node.type_name}) (uninitialised memory)"
        for _, param in built.node.named_parameters():
            param.ops = [InitOp("empty", None, call, ctx.via, ctx.certain, label)]
    return built


def _parameter(value: Any, call: cst.Call, ctx: "Ctx") -> Any:
    """`nn.Parameter(data)`: the tensor it wraps, with the init that tensor was given."""
    if isinstance(value, (NewTensor, ParamRef)):
        return value
    return NewTensor(InitOp("unknown", None, call, ctx.via, False, "nn.Parameter(...)"))


def _generic_init_called_unbound(name: str, args: list[Any]) -> bool:
    """`PreTrainedModel._init_weights(self, module)`: the library base's init called through the
    class, as `super()._init_weights(module)` calls it."""
    owner, _, method = name.rpartition(".")
    return (
        method == "_init_weights"
        and (owner in HF_PRETRAINED_BASES or owner.endswith(PRETRAINED_NAME_ENDINGS))
        and len(args) == 2
        and isinstance(args[1], ModRef)
    )


def _stdlib_name(name: str) -> str:
    head, _, last = name.rpartition(".")
    if head in ("math", "numpy", "np", "torch", "jax.numpy") and last in ("sqrt", "pow", "rsqrt", "exp", "log", "erf"):
        return last
    return name


def _tensor_method(
    interp: "Interpreter",
    receiver: ParamRef | NewTensor,
    name: str,
    args: list[Any],
    kwargs: dict[Any, Any],
    ctx: "Ctx",
    call: cst.Call,
) -> Any:
    if name in RANK_METHODS:
        return tensor_rank(receiver)
    if name in SHAPE_METHODS:
        return tensor_size(receiver, args) if not kwargs and len(args) < 2 else UNKNOWN
    if VALUE_KEEPING_METHODS.get(name, False):
        return receiver  # `w.cpu()`, `w.detach()`: the same values, moved or viewed
    spec = interp.knowledge.tensor_method(name)
    if spec is None:
        return UNKNOWN
    return record_init(interp, receiver, spec, args, kwargs, ctx, call, name, _fill_kind(spec.kind, args))


def call_method(
    interp: "Interpreter", method: BoundMethod, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.Call
) -> Any:
    receiver, name = method.receiver, method.name
    if isinstance(receiver, (ParamRef, NewTensor)):
        return _tensor_method(interp, receiver, name, args, kwargs, ctx, call)
    if isinstance(receiver, ModRef):
        for other in receiver.others:  # the part another arm of an undecided `if` built
            module_method(interp, other, name, args, kwargs, ctx, call)
        return module_method(interp, receiver.node, name, args, kwargs, ctx, call)
    if isinstance(receiver, Const) and isinstance(receiver.value, str):
        return string_method(receiver.value, name, args)
    if isinstance(receiver, Opaque) and string_default(receiver) is not None:
        return string_default_method(receiver, name, args)
    if isinstance(receiver, Seq) and name in ("append", "extend"):
        return extend_list(receiver, args[0] if name == "extend" and args else Seq(args[:1]), ctx)
    if isinstance(receiver, (Mapping, Opaque)) and name == "get" and args:
        return config_entry(interp, receiver, args[0], args[1] if len(args) > 1 else Const(None))
    if isinstance(receiver, Mapping) and name in ("items", "keys", "values", "pop", "copy"):
        return mapping_method(receiver, name, args)
    if isinstance(receiver, Registry):
        return registry_method(interp, receiver, name, args, kwargs)
    if isinstance(receiver, SuperRef):
        if name == "__init__" and isinstance(receiver.instance, ModRef):
            interp.init_library_container(receiver.instance.node, args, kwargs)
        return _super_method(interp, receiver, name, [*args, *kwargs.values()], ctx, call)
    return UNKNOWN


def _super_method(
    interp: "Interpreter", receiver: SuperRef, name: str, args: list[Any], ctx: "Ctx", call: cst.Call
) -> Any:
    """`super().__init__(...)` or `super()._init_weights(m)` on a base initlint cannot read."""
    if name == "_init_weights" and args and isinstance(args[0], ModRef):
        model = receiver.instance.node if isinstance(receiver.instance, ModRef) else None
        hf_generic_init(interp, args[0].node, ctx, call, model)
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

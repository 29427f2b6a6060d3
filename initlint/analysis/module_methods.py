"""The `nn.Module` methods the interpreter follows on a module of the model: `apply` (children
first), `named_parameters`, `modules`, `children`, the container views, `get_submodule`,
`reset_parameters`, the registering methods, and the transformers init entry points
(`post_init()`, which runs `_init_weights` or the library's generic init over every module)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, FuncRef, Lambda, Mapping, ModRef, Opaque, ParamRef, Seq
from initlint.analysis.knowledge.huggingface import GENERIC_INIT, GENERIC_INIT_STD
from initlint.analysis.layers import layer_type
from initlint.analysis.model import InitOp, ModuleNode
from initlint.analysis.module_registration import set_module_attr
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


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
        # Under a test left undecided, the reset may not run.
        interp.add_default_params(node, known, {}, ctx, certain=ctx.certain)
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
    if name == "extend" and args and isinstance(args[0], Seq) and args[0].repeat is not None and ctx.repeat is None:
        ctx = replace(ctx, repeat=args[0].repeat)  # `blocks.extend([Block() for _ in range(n)])`: one stands for n
    for value in values:
        key = (
            str(args[0].value)
            if name != "append" and name != "extend" and isinstance(args[0], Const)
            else _next_index(node)
        )
        set_module_attr(interp, node, key, value, ctx, call)
    return Const(None)


def _next_index(node: ModuleNode) -> str:
    """The index an appended entry takes: one past the entries so far, those that are no module
    we could build included (`layers.append(build_mixer(d))` from a library we cannot read still
    takes index 0, and the next entry index 1)."""
    taken = [int(key) for key in (*node.children, *node.attrs) if key.isdigit()]
    return str(max(taken) + 1 if taken else 0)


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
            hf_generic_init(interp, module, inner, call, node)


def _generic_std_field(interp: "Interpreter", model: ModuleNode | None) -> str:
    """The config field the generic init reads: the first of the registry's that the model's
    config class defines (patchtsmixer's config has `init_std` only); the first where the class
    is not known."""
    stored = interp.knowledge.stored_init_argument(interp.index.base_chain(model.cls)) if model and model.cls else None
    config = model.attrs.get(stored) if model is not None and stored is not None else None
    cls = config.fields if isinstance(config, Opaque) else None
    defined = (
        {name for owner in interp.index.mro(cls) for name in (*owner.attributes, *owner.init_fields())}
        if cls
        else set()
    )
    return next((name for name in GENERIC_INIT_STD if name in defined), GENERIC_INIT_STD[0])


def replace_via(ctx: "Ctx", step: str) -> "Ctx":
    return replace(ctx, via=ctx.via + (step,))


def hf_generic_init(
    interp: "Interpreter", node: ModuleNode, ctx: "Ctx", call: cst.CSTNode, model: ModuleNode | None = None
) -> None:
    """transformers' PreTrainedModel._init_weights on `node`, a module of `model`: normal(std) for
    linears and embeddings, the std read from the first of its fields `model`'s config has."""
    ctx = ctx.toward(node)
    via = ctx.via + ("transformers PreTrainedModel._init_weights",)
    plan = dict(GENERIC_INIT.get(node.kind, ()))
    field = _generic_std_field(interp, model)
    for pname, param in node.params.items():
        kind = plan.get(pname, plan.get("*"))
        if kind is None:
            continue
        std = Monomial.atom(field) if kind == "normal" else Monomial.of(0.0)
        label = f"transformers' generic normal_(std=config.{field})" if kind == "normal" else "zeros_"
        param.ops.append(
            InitOp(kind, std, call, via, ctx.certain, "ones_/zeros_" if node.kind == "norm" else label, ctx.arm)
        )

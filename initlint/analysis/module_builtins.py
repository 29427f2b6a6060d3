"""Builtins whose answer depends on what a module is: `isinstance` against layer classes (of
the code, of the registry, or known only by name), `hasattr`/`getattr` of flag attributes
(`NANOGPT_SCALE_INIT`), `setattr` of a module and `type` of one. The Python layer consults them through
`call_python_builtin(..., extra=MODULE_AWARE_BUILTINS)` without importing this module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    Choice,
    ClassRef,
    Const,
    ExtRef,
    FuncRef,
    Lambda,
    Mapping,
    ModRef,
    Num,
    ParamRef,
    Seq,
)
from initlint.analysis.index import PRETRAINED_NAME_ENDINGS
from initlint.analysis.layers import isinstance_by_name, layer_type
from initlint.analysis.model import ModuleNode
from initlint.analysis.module_registration import set_module_attr
from initlint.analysis.python_builtins import Builtin
from initlint.analysis.python_operators import builtin_isinstance, builtin_type, string_value
from initlint.analysis.torch_attributes import declares_field, get_attr, module_attr

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


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
        if _public_torch_nn(node.type_name) and _public_torch_nn(target.name):
            return False  # torch.nn's public layers derive from no other public layer of it
        return None
    if node.kind == "unknown" and target.name == node.type_name:
        return True
    return None


def _public_torch_nn(name: str) -> bool:
    package, _, last = name.rpartition(".")
    return package == "torch.nn" and not last.startswith("_")


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
        plain = builtin_isinstance(interp, value, classes)
        if plain is not None:
            return plain
        if isinstance(value, (ParamRef, Num, Const, Seq, Mapping)) and isinstance(classes, (ClassRef, ExtRef)):
            last = classes.cls.name if isinstance(classes, ClassRef) else classes.name.rsplit(".", 1)[-1]
            if last in ("Linear", "Embedding", "LayerNorm", "Module", "Conv1D") or isinstance(classes, ClassRef):
                return Const(False)
        return UNKNOWN
    targets = classes.items if isinstance(classes, Seq) and classes.repeat is None else [classes]
    answers = {_module_isinstance(interp, node, targets) for node in (value.node, *value.others)}
    return Const(answers.pop()) if len(answers) == 1 and None not in answers else UNKNOWN


def _module_isinstance(interp: "Interpreter", node: ModuleNode, targets: list[Any]) -> bool | None:
    """Whether `node` is an instance of one of `targets`; None where that is not known. (A
    module one of several arms built answers for all of them, or is left unknown.)"""
    results = [_node_isinstance(interp, node, target) for target in targets]
    if True in results:
        return True
    return False if all(r is False for r in results) else None


def _is_class_object(interp: "Interpreter", value: Any) -> Any:
    """`isinstance(x, type)`: a class of the code, or a layer class the registry knows, is one."""
    if isinstance(value, ClassRef) or isinstance(value, ExtRef) and layer_type(interp.knowledge, value.name):
        return Const(True)
    return Const(False) if isinstance(value, (FuncRef, Lambda, Const, Num, Seq, Mapping, ModRef)) else UNKNOWN


def attribute_probe(interp: "Interpreter", name: str, args: list[Any], ctx: "Ctx") -> Any:
    """`hasattr(module, "NANOGPT_SCALE_INIT")`, `getattr(module, "FLAG", False)`."""
    target, attr = args[0], str(args[1].value)
    if declares_field(target, attr):
        # `getattr(self.config, "use_mup", False)` on a config whose class declares the field:
        # the field, as `self.config.use_mup` reads it; the fallback is for configs without it.
        return Const(True) if name == "hasattr" else get_attr(interp, target, attr, ctx)
    if name == "hasattr" and isinstance(target, ExtRef) and interp.knowledge.knows(f"{target.name}.{attr}"):
        # `if hasattr(nn, "RMSNorm"): return nn.RMSNorm(d)`, a feature probe of the library: the
        # registry describes the name, so the library has it, and the hand-written fallback is
        # the arm that does not run. A name it does not know stays undecided, never absent.
        return Const(True)
    if not isinstance(target, ModRef):
        return UNKNOWN if name == "hasattr" else (args[2] if len(args) > 2 and isinstance(target, Const) else UNKNOWN)
    node = target.node
    present = attr in node.attrs or attr in node.children or attr in node.params
    # Every module has a `forward` (`hasattr(self.attn, "forward")` tells a module from a function).
    present = present or attr == "forward"
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


def _isinstance(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    return isinstance_of(interp, args[0], args[1]) if len(args) == 2 else None


def _attribute_probe(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    if name == "getattr" and len(args) == 2 and isinstance(args[0], ExtRef):
        # `getattr(nn, norm_layer)` with a layer's name: the class, as `nn.LayerNorm` is.
        attr = string_value(interp, args[1])
        return get_attr(interp, args[0], attr, ctx) if attr is not None else UNKNOWN
    if len(args) >= 2 and isinstance(args[1], Const):
        return attribute_probe(interp, name, args, ctx)
    return None


def _type(
    interp: "Interpreter", name: str, args: list[Any], kwargs: dict[Any, Any], ctx: "Ctx", call: cst.CSTNode
) -> Any:
    """`type(x)` with one argument. Of a module, its class, which builds another like it
    (`type(norm)(dim)`): a class of the code, or a library layer the registry knows; a module
    that is one of several (built in the arms of an undecided `if`) has one of their classes.
    Of a plain value, the builtin class it names (`type(heads) is not tuple`)."""
    if len(args) != 1 or kwargs:
        return None
    if not isinstance(args[0], ModRef):
        return builtin_type(interp, args[0])  # `type(heads) is not tuple`
    classes: list[Any] = []
    for node in (args[0].node, *args[0].others):
        known = node.cls is None and layer_type(interp.knowledge, node.type_name) is not None
        cls = ClassRef(node.cls) if node.cls is not None else ExtRef(node.type_name) if known else None
        if cls is None:
            return UNKNOWN
        classes += [] if cls in classes else [cls]
    return classes[0] if len(classes) == 1 else Choice(tuple(classes))


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
    "type": _type,
    "object.__setattr__": _setattr,
}

"""Writing an attribute of a module (`self.name = value`), as `nn.Module.__setattr__` does: a
layer becomes a child (or an alternative child, under an undecided `if`), a parameter or a fresh
tensor becomes a parameter (weight tying shares one), anything else a plain attribute. The
registering methods (`append`, `add_module`, ...) and `setattr` all come here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import Const, MethodChoice, ModRef, NewTensor, ParamRef, bound_method, merge_uncertain
from initlint.analysis.model import ModuleNode, Param

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Ctx, Interpreter


def _stores_only(value: cst.BaseExpression | None) -> bool:
    """`wo`, `self.blocks`, `attn, mlp`: names of things made before, nothing made here."""
    if isinstance(value, cst.Tuple):
        return all(_stores_only(element.value) for element in value.elements)
    return isinstance(value, (cst.Name, cst.Attribute))


def _built_by_statement(value: cst.BaseExpression | None, built: cst.CSTNode | None) -> bool:
    """Whether `self.name = value` is where the layer is built. `self.wo = wo` stores one built
    before (a constructor argument made by a builder function): its construction stays where it
    was. `self.proj = (nn.Linear(d, d) if heads > 1 else None)` builds it by the call in one arm
    of a conditional expression, on a line of its own when the statement is split: that call is."""
    if built is None:
        return True
    arm = isinstance(value, cst.IfExp) and built in (value.body, value.orelse)
    return not (_stores_only(value) or arm)


def set_module_attr(
    interp: "Interpreter", node: ModuleNode, name: str, value: Any, ctx: "Ctx", stmt: cst.CSTNode
) -> None:
    ctx = ctx.toward(node)
    if isinstance(value, ModRef):
        child = value.node
        if child.parent is not None and _in_unheld_list(child, node):
            # Handed over: the module storing it owns it.
            if child.parent.children.get(child.name) is child:
                del child.parent.children[child.name]
            child.parent = None
        if child.parent is not None or child is node or _plain_object(interp, child):
            # An alias of a module registered elsewhere, or an object `nn.Module.__setattr__`
            # keeps as a plain attribute: neither is a submodule.
            node.attrs[name] = value
            return
        if not ctx.certain and name in node.children and node.children[name] is not child:
            node.add_alternative(name, child)  # the other arm of an undecided `if`
            first, choice = node.children[name], interp.undecided_choices.get(ctx.arm[0]) if ctx.arm else None
            if choice is not None and ctx.arm is not None and first.chosen_by == (choice.test, 1 - ctx.arm[1]):
                first.optional = False  # each arm builds one: one of them exists
        else:
            _replace_child(node, name, child, ctx.certain)
            child.optional = not ctx.certain and node.built_certain
        for other in value.others:
            node.add_alternative(name, other).repeat = ctx.repeat or other.repeat
        choice = interp.undecided_choices.get(ctx.arm[0]) if ctx.arm is not None else None
        if choice is not None and ctx.arm is not None:
            child.chosen_by = (choice.test, ctx.arm[1])
        if isinstance(stmt, (cst.Assign, cst.AnnAssign)) and _built_by_statement(stmt.value, child.created_at):
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
        built_here = isinstance(stmt, (cst.Assign, cst.AnnAssign)) and _built_by_statement(stmt.value, value.op.node)
        param.created_at = stmt if built_here else value.op.node
        node.params[name] = param
        return
    if name in node.params and isinstance(value, Const) and value.value is None:
        del node.params[name]
        return
    methods = None if ctx.certain else _one_of(node.attrs.get(name), value)
    node.attrs[name] = methods or merge_uncertain(node.attrs, name, value, ctx)


def _replace_child(node: ModuleNode, name: str, child: ModuleNode, certain: bool) -> None:
    replaced = node.children.get(name) if certain else None
    node.add_child(name, child)
    if replaced is not None and replaced is not child:
        _handed_to_wrapper(replaced, child)


def _handed_to_wrapper(replaced: ModuleNode, wrapper: ModuleNode) -> None:
    """`self.decoder = Wrapper(self.decoder)`: the wrapper's `self.net = net` registered the old
    module there too, kept as an alias while its first owner held it. Replaced under its first
    name, it is now reached only through the wrapper, which owns it (`decoder.net.*`)."""
    pending = [wrapper]
    while pending:
        holder = pending.pop(0)
        for attr, value in holder.attrs.items():
            if isinstance(value, ModRef) and value.node is replaced and not value.others:
                del holder.attrs[attr]
                holder.add_child(attr, replaced)
                return
        pending.extend(holder.children.values())


def _one_of(previous: Any, value: Any) -> MethodChoice | None:
    """A method of the module stored where another was (`elif parallel: self._forward =
    self._forward_parallel`): on a path that may not run, the name holds one of them after."""
    if not bound_method(value):
        return None
    options = previous.options if isinstance(previous, MethodChoice) else (previous,)
    if not all(bound_method(option) and option.bound == value.bound for option in options):
        return None
    return MethodChoice((*options, value)) if value not in options else previous


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


def _in_unheld_list(child: ModuleNode, node: ModuleNode) -> bool:
    """Whether `child` sits in a plain module list that no module holds, nor is building
    (`Runner(nn.ModuleList(pairs))` wrapping each pair in a block it keeps, never the list): the
    module storing it is then the first to register it, where PyTorch names its parameters."""
    top, outer = child, node
    while top.parent is not None:
        top = top.parent
    while outer.parent is not None:
        outer = outer.parent
    return top.kind in ("container", "sequential") and top.cls is None and top is not outer


def _plain_object(interp: "Interpreter", node: ModuleNode) -> bool:
    """An instance of a class of the project with no base but `object` (a helper holding
    buffers): not an `nn.Module`, so its tensors are no model's parameters."""
    return node.cls is not None and all(
        base in ("object", "builtins.object") for base in interp.index.base_chain(node.cls)
    )

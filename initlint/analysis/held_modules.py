"""Modules a block holds that another module registered first.

`nn.Module.__setattr__` makes a module a submodule of the first module it is stored in; stored in
another afterwards it is a plain reference there (`module_registration.py` keeps it in `attrs`),
yet that module's `forward` runs it. A reversible stack is the common case: the model registers
its branches in a list of pairs (`layers`), and a sequence built from that list keeps each pair
in a coupling block (`Coupling(f, g) for f, g in layers`) whose `forward` adds them into the
halves of the stream. Their writers sit under `layers`, where PyTorch names their parameters,
not under the block whose adds they make.
"""

from __future__ import annotations

from initlint.analysis.abstract import ModRef
from initlint.analysis.model import ModuleNode

#: How many modules deep the search through held references goes.
_MAX_HOPS = 64


def held_path(block: ModuleNode, layer: ModuleNode) -> str | None:
    """The attribute path by which `block`'s code reaches `layer` (`f.inner.body.proj`): through
    its children and the modules it holds that were registered elsewhere. None where it does not."""
    if layer.is_under(block):
        return layer.path[len(block.path) + 1 :] if block.path else layer.path
    seen = {id(block)}
    todo: list[tuple[ModuleNode, str]] = [(block, "")]
    while todo and len(seen) < _MAX_HOPS:
        node, prefix = todo.pop(0)
        for name, value in node.attrs.items():
            if not isinstance(value, ModRef) or value.others or id(value.node) in seen:
                continue
            held = value.node
            seen.add(id(held))
            if block.is_under(held):
                continue  # a reference up to a module holding the block: no path down from it
            path = f"{prefix}{name}"
            if layer.is_under(held):
                inner = layer.path[len(held.path) + 1 :] if held.path else layer.path
                return f"{path}.{inner}" if inner else path
            todo.append((held, f"{path}."))
        for name, child in node.children.items():
            if id(child) not in seen:
                seen.add(id(child))
                todo.append((child, f"{prefix}{name}."))
    return None


def held_per_block(block: ModuleNode, layer: ModuleNode) -> bool:
    """`layer` is registered outside the repeated `block`, which reaches it through a module it
    holds, and it stands for one module per block: the list it was registered in repeats as often
    as the block does (each block was handed its own entry, `for f, g in layers`). One module
    held by every block (`Block(shared_attn) for _ in range(n)`) is not."""
    if block.repeat is None or layer.is_under(block) or held_path(block, layer) is None:
        return False
    node: ModuleNode | None = layer
    while node is not None and node.repeat is None:
        node = node.parent
    return node is not None and node.repeat == block.repeat and not block.is_under(node)

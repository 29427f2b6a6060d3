"""The stacks of one root: each list of blocks whose repeated block makes a depth stack (or
copies of one block chained by hand), its depth, the residual adds each block makes and the
layers that write them."""

from __future__ import annotations

from initlint.analysis.gates import settle_gates
from initlint.analysis.held_modules import held_per_block
from initlint.analysis.model import ModuleNode, ResidualAdd, Stack, Writer
from initlint.analysis.python_operators import number_sum
from initlint.analysis.residual import ForwardReader
from initlint.analysis.scaling import reference_std
from initlint.analysis.streams import unrolled_copies
from initlint.analysis.values import Monomial


def _repeated_child(container: ModuleNode) -> ModuleNode | None:
    """The repeated block of a container: its only child, or in an `nn.Sequential` the one child
    that stands for many (`nn.Sequential(stem, *blocks, head)`)."""
    if container.kind not in ("container", "sequential"):
        return None
    children = list(container.children.values())
    if len(children) == 1:
        return children[0]
    repeated = [child for child in children if child.repeat is not None]
    if len(repeated) != 1:
        return None
    # A list of `n - 1` copies and the last one appended on its own (built with other
    # arguments) is one stack; in an `nn.Sequential` the layers around it are a stem and a head.
    beside = _copies_beside(container, repeated[0])
    return repeated[0] if container.kind == "sequential" or len(beside) == len(children) - 1 else None


def _copies_beside(container: ModuleNode, block: ModuleNode) -> list[ModuleNode]:
    """The single blocks of the repeated block's class beside it in its list (`n - 1` copies, then
    `layers.append(Block(d, last=True))`): layers of the same stack, each one block deeper."""
    if block.repeat is None or block.cls is None:
        return []
    return [child for child in container.children.values() if child.repeat is None and child.cls is block.cls]


def _repeated_kinds(container: ModuleNode) -> list[ModuleNode]:
    """The blocks of a list a loop fills with one of several classes per index (`AttentionLayer`
    every fourth layer, `MambaLayer` otherwise): each stands for its share of the same count, and
    every layer of the stack is one of them. Otherwise the one repeated block, if any, with the
    blocks an undecided test builds in its place (`get_block(config, i)` returning one class or
    another as `i in config.attn_layer_idxs`): each layer is one of those."""
    children = list(container.children.values())
    repeated = [child for child in children if child.repeat is not None]
    counts = {child.repeat for child in repeated}
    # In an `nn.Sequential` the layers around the stack (a stem, a final norm) repeat once.
    whole = len(repeated) == len(children) or container.kind == "sequential"
    if container.kind in ("container", "sequential") and len(repeated) > 1 and len(counts) == 1 and whole:
        return repeated
    block = _repeated_child(container)
    return list(block.with_alternatives()) if block is not None else []


def stacks_of(root: ModuleNode, reader: ForwardReader) -> list[Stack]:
    stacks: list[Stack] = []
    for _, container in root.named_modules():
        for block in _repeated_kinds(container):
            stacks.extend(_stack_of(root, container, block, reader))
    for copies in unrolled_copies(reader.stream_runs(root)):
        unrolled = _stack_of(root, copies[0].parent or root, copies[0], reader, copies)
        stacks.extend(stack for stack in unrolled if stack.adds)
    return stacks


def _stack_of(
    root: ModuleNode,
    container: ModuleNode,
    block: ModuleNode,
    reader: ForwardReader,
    copies: list[ModuleNode] | None = None,
) -> list[Stack]:
    """The stack of `block`, repeated in `container`; or, of `copies` (of it) chained by hand,
    where the block is no list's, the first standing for them all."""
    depth = Monomial.of(len(copies)) if copies else block.repeat
    beside = [] if copies else _copies_beside(container, block)
    if depth is not None and beside:
        depth = number_sum(depth, Monomial.of(len(beside)), negate=False)  # `(n - 1) + 1` is `n`
    if depth is None or not (
        block.kind == "module"
        and block.cls is not None
        or block.kind in ("container", "sequential", "wrapper", "block")
    ):
        return []
    # An add a repeated block inside this one makes (a stage's blocks) is that inner stack's:
    # counted per stage it would name the stage count as the depth.
    adds = [add for add in reader.residual_adds(block) if not _made_in_nested_stack(block, add)]
    settle_gates(adds)
    writers: list[Writer] = []
    for add in adds:
        for ref in add.writers:
            # (The layer itself where the path also names another arm's layer.)
            inside = ref.layer is not None and ref.layer.path.startswith(f"{block.path}.")
            node = ref.layer if inside else block.descend(ref.path)
            if node is None and ref.layer is not None and held_per_block(block, ref.layer):
                node = ref.layer  # one of a list of branches, each block handed its own
            if node is not None:
                writers.append(Writer(ref, add, node))
    # (The same layer of each other copy is a writer too, not an ordinary linear.)
    relative = [writer.node.path.removeprefix(f"{block.path}.") for writer in writers]
    same = [copy.descend(path) for copy in copies or beside for path in relative]
    reference = reference_std(root, {id(node) for node in [*(writer.node for writer in writers), *same]})
    return [Stack(root, container, block, depth, depth.describe(), adds, writers, reference)]


def _made_in_nested_stack(block: ModuleNode, add: ResidualAdd) -> bool:
    """The add is made by a module below `block` that stands for many copies of itself."""
    node: ModuleNode | None = block
    for part in add.site.split(".") if add.site else ():
        node = node.children.get(part) if node is not None else None
        if node is not None and node.repeat is not None:
            return True
    return False

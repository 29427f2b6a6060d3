"""One stream through several block lists: the residual adds N counts are all those into it.

A root's `forward` may hand the stream from one list of blocks to the next (`for blk in
self.encoder: x = blk(x)` and then `for blk in self.decoder: x = blk(x)`): each list's writers
add into the same stream, so the depth factor owed is over the adds of every list. A list run
over another value (an encoder's output, handed to the decoder as cross-attention memory) is
another stream. Which lists each stream runs through is what the forward reader recorded while
reading the root's `forward` (`flow.StreamRuns`).
"""

from __future__ import annotations

import libcst as cst

from initlint.analysis.facts import adds_in
from initlint.analysis.model import ModuleNode, Stack


def join_streams(root: ModuleNode, stacks: list[Stack], runs: list[list[ModuleNode]]) -> None:
    """Mark the stacks of `root` that one stream runs through in turn with N over them all."""
    own = [stack for stack in stacks if stack.container.parent is root]
    by_container = {id(stack.container): stack for stack in own}
    if len(by_container) < 2 or len(by_container) != len(own):
        return  # (a list holding several kinds of block: its share of N is counted elsewhere)
    for run in runs:
        met = dict.fromkeys(id(container) for container in run)
        # (A list whose blocks add only into a second stream they carry beside it, the pair
        # representation updated beside the atoms, adds nothing into this one.)
        joined = [
            by_container[key]
            for key in met
            if key in by_container and not all(add.stream for add in by_container[key].default_adds)
        ]
        if len(joined) < 2 or any(not stack.default_adds for stack in joined):
            continue
        terms = _terms_of_n(joined)
        if len(terms) < 2:
            continue
        total = " + ".join(terms)
        for stack in joined:
            stack.stream = tuple(other.container.path for other in joined)
            stack.stream_adds = total


def _terms_of_n(joined: list[Stack]) -> list[str]:
    """N's terms, one per list; but lists the root walks in step in its own `forward`
    (`x = x + self.attns[i](...)`, `x = x + self.ffs[i](...)` in one loop body) make the same adds:
    one term for them all, or each add would be counted once per list."""
    terms: dict[object, str] = {}
    for stack in joined:
        root_forward = f"{stack.root.cls.name}.forward" if stack.root.cls is not None else None
        adds = stack.path_adds
        in_step = bool(adds) and all(add.forward == root_forward for add in adds)
        key = frozenset(id(add.statement) for add in adds) if in_step else id(stack)
        terms.setdefault(key, adds_in(stack))
    return list(terms.values())


def unrolled_copies(runs: list[list[ModuleNode]]) -> list[list[ModuleNode]]:
    """Copies of one block chained by hand, each handed what the one before returned (`x =
    self.block_1(x)`, `x = self.block_2(x)`, `x = self.block_3(x)`): separate attributes of one
    module, of one class of the project, built by calls with the same arguments, met one right
    after another in a stream's run. A layer between two of them (a norm, a downsampling) ends
    the chain; a block applied twice in a row is one set of weights, not two copies; modules of
    one wrapper class around different branches (`Residual(spatial_attn)`, `Residual(temporal_attn)`)
    are no copies."""
    chains: list[list[ModuleNode]] = []
    seen: set[int] = set()
    for run in runs:
        chain: list[ModuleNode] = []
        for node in [*run, None]:
            if node is not None and chain and _copy_of(node, chain):
                chain.append(node)
                continue
            if len(chain) > 1 and id(chain[0]) not in seen:
                seen.add(id(chain[0]))
                chains.append(chain)
            chain = [node] if node is not None and _held_alone(node) else []
    return chains


def _held_alone(node: ModuleNode) -> bool:
    """A module of a class of the project, an attribute of its own (no list's block)."""
    return node.kind == "module" and node.cls is not None and node.repeat is None


def _copy_of(node: ModuleNode, chain: list[ModuleNode]) -> bool:
    first = chain[0]
    return (
        _held_alone(node)
        and node.parent is first.parent
        and node.cls is first.cls
        and _same_call(node.created_at, first.created_at)
        and all(node is not other for other in chain)
    )


def _same_call(made: cst.CSTNode | None, other: cst.CSTNode | None) -> bool:
    """Whether two modules were built by calls with the same arguments (`self.block_1 =
    Block(dim)`, `self.block_2 = Block(dim)`)."""
    call, twin = _call_in(made), _call_in(other)
    if call is None or twin is None or len(call.args) != len(twin.args):
        return False
    return all(arg.deep_equals(same) for arg, same in zip(call.args, twin.args))


def _call_in(made: cst.CSTNode | None) -> cst.Call | None:
    """The call a module's creation point makes: the call itself, or the value it assigns."""
    if isinstance(made, (cst.Assign, cst.AnnAssign)):
        made = made.value
    return made if isinstance(made, cst.Call) else None

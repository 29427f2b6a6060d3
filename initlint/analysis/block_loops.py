"""What a `forward`'s loops over a list of blocks carry from one block to the next.

A list of blocks is a depth stack only where its owner's loop hands each block what an earlier
one returned. A loop that hands each block a value built afresh in its iteration (one fusion
block per branch of a multi-scale model, each given its branch's tokens) runs them side by side:
their adds do not pile up, whatever their count. A list walked again and again inside `for _ in
range(n)` (Perceiver's one block of self-attends applied num_blocks times) adds its branches
once per run: its depth is n times its length. Both are what the forward reader recorded while
reading the owner's `forward` (`flow.BlockLoops`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from initlint.analysis.model import ModuleNode, Stack
from initlint.errors import StepBudgetExceeded

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.flow import BlockLoops
    from initlint.analysis.residual import ForwardReader


def repeat_runs(stacks: list[Stack], reader: ForwardReader) -> None:
    """A list its owner's `forward` walks again and again, the blocks' weights shared across the
    runs (`for _ in range(self.config.num_blocks): for layer in self.self_attends: ...`): each
    run adds the blocks' branches into the stream again, so the depth is the runs times the
    list's length. A list whose every block the owner's loop follows by a norm of the stream
    (`x = self.norms[i](blk(x))`) is post-norm in effect: its adds never sum over depth."""
    for stack in stacks:
        loops = _owner_loops(stack.container, reader)
        if loops is not None and loops.renormalised(stack.container):
            for add in stack.adds:
                add.prenorm = False
        runs = loops.runs(stack.container) if loops is not None else None
        if runs is not None:
            stack.depth = runs * stack.depth
            stack.depth_source = stack.depth.describe()


def runs_side_by_side(container: ModuleNode, reader: ForwardReader) -> bool:
    """Whether the owner's `forward` applies the blocks of `container` only in loops where each
    block takes a value built afresh in its iteration, never one an earlier block returned."""
    loops = _owner_loops(container, reader)
    return loops is not None and loops.side_by_side(container)


def _owner_loops(container: ModuleNode, reader: ForwardReader) -> BlockLoops | None:
    owner = container.parent
    if owner is None or owner.cls is None:
        return None
    try:
        return reader.block_loops(owner)
    except (StepBudgetExceeded, RecursionError):
        return None  # (its stacks are kept: the root's own reading says what else is lost)

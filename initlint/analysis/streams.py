"""One stream through several block lists: the residual adds N counts are all those into it.

A root's `forward` may hand the stream from one list of blocks to the next (`for blk in
self.encoder: x = blk(x)` and then `for blk in self.decoder: x = blk(x)`): each list's writers
add into the same stream, so the depth factor owed is over the adds of every list. A list run
over another value (an encoder's output, handed to the decoder as cross-attention memory) is
another stream. Which lists each stream runs through is what the forward reader recorded while
reading the root's `forward` (`flow.StreamRuns`).
"""

from __future__ import annotations

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
        joined = [by_container[key] for key in met if key in by_container]
        if len(joined) < 2 or any(not stack.default_adds for stack in joined):
            continue
        total = " + ".join(adds_in(stack) for stack in joined)
        for stack in joined:
            stack.stream = tuple(other.container.path for other in joined)
            stack.stream_adds = total

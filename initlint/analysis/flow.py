"""The abstract values of the forward data flow (`residual.py`), how they combine, and which
layers normalise, pass through or gate what reaches them; and the record of the block lists
each value runs through (`StreamRuns`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from initlint.analysis.abstract import UNKNOWN
from initlint.analysis.knowledge.conventions import NORM_HINTS, PASS_THROUGH_HINTS, SQUASHING
from initlint.analysis.model import ModuleNode, Param, RuntimeScale


class Stream:
    """The residual stream itself."""


class Normed:
    """A normalised copy of the stream."""


STREAM, NORMED = Stream(), Normed()
#: Normalised only if a condition we cannot decide holds (`if self.normalize_before:`).
MAYBE_NORMED = Normed()


class Activated:
    """The stream through a nonlinearity (`relu(x + f(x))`): a post-activation residual network's
    block output, not a residual stream handed on unchanged."""


ACTIVATED = Activated()


class Conditioned:
    """Computed by a layer from something other than the stream (adaLN's `shift, scale, gate`)."""


CONDITIONED = Conditioned()


@dataclass(frozen=True)
class Branch:
    last: tuple[ModuleNode, ...]  # the layer(s) applied last
    normed: bool | None  # None: only under a condition we cannot decide
    scales: tuple[RuntimeScale, ...] = ()
    #: A norm applied after the writer resets the branch's scale whatever its init.
    renormalised: bool = False
    #: The whole stream went through layers ending in a norm (`x = conv_bn(x)`): handed on as
    #: the stream, it starts afresh from there, as after a post-norm block's `norm(x + f(x))`.
    resets_stream: bool = False
    gated: bool = False
    #: Passed through a sigmoid/softmax/tanh: a gate rather than content.
    squashed: bool = False
    #: Parameters of a module used as the weight matrix (3-D MoE experts: `h @ self.down_proj[e]`).
    matrices: tuple[Param, ...] = ()


@dataclass(frozen=True)
class Part:
    """A later part of a layer's output unpacked in `forward` (`q, k, v, h = self.fused(x).split(...)`,
    `out, gate = self.ada_norm(x, emb)`): multiplying a branch, it gates it as a conditioned value
    does; a layer run on it computes content from what the whole was computed from (the MLP's
    share of a fused projection)."""

    whole: Branch


@dataclass(frozen=True)
class Adder:
    """What a stream connection hands back beside the branch input (hyper-connections'
    `add_residual`): called on a branch output, it adds that branch into `stream`, the value the
    connection was handed, as `stream + branch` does. `adds`: the connection's add switch (None:
    undecided; False: it hands the branch output back alone)."""

    stream: Any
    adds: bool | None = True


def is_norm(node: ModuleNode) -> bool:
    if node.kind == "norm":
        return True
    names = (node.name.lower(), node.type_name.rsplit(".", 1)[-1].lower())
    return (
        node.kind in ("unknown", "module")
        and any(hint in n for n in names for hint in NORM_HINTS)
        and not node.children
    )


def is_pass_through(node: ModuleNode) -> bool:
    if node.kind in ("dropout", "activation"):
        return True
    name = node.name.lower()
    return node.kind == "unknown" and any(hint in name for hint in PASS_THROUGH_HINTS)


def is_squashing(node: ModuleNode) -> bool:
    """`nn.Softmax`, `nn.Sigmoid`, `nn.Tanh`: the layer form of the functions that make a gate."""
    return node.kind == "activation" and node.type_name.rsplit(".", 1)[-1].lower() in SQUASHING


def is_gate(node: ModuleNode) -> bool:
    """LayerScale-like: a module with its own parameters and no sub-layers."""
    return node.kind == "module" and not node.children and bool(node.params)


def merge(values: list[Any]) -> object:
    branches = [v for v in values if isinstance(v, Branch)]
    if branches:
        last = tuple(dict.fromkeys(m for b in branches for m in b.last))
        normed = None if any(b.normed is None for b in branches) else all(b.normed for b in branches)
        return Branch(
            last,
            normed,
            tuple(s for b in branches for s in b.scales),
            renormalised=any(b.renormalised for b in branches),
            resets_stream=any(b.resets_stream for b in branches),
            gated=any(b.gated for b in branches),
            # (`torch.topk(probs, k)`: still probabilities, where each value merged is.)
            squashed=all(b.squashed for b in branches),
            matrices=tuple(dict.fromkeys(p for b in branches for p in b.matrices)),
        )
    for marker in (STREAM, NORMED, MAYBE_NORMED, CONDITIONED):
        if marker in values:
            return marker
    return next((v for v in values if isinstance(v, Part)), UNKNOWN)


def join(a: object, b: object) -> object:
    """The value of a name after an undecided `if`: normalised on one path only is MAYBE_NORMED."""
    if a is b:
        return a
    normed = (NORMED, MAYBE_NORMED)
    if (a in normed or a is STREAM) and (b in normed or b is STREAM):
        return MAYBE_NORMED
    if STREAM in (a, b) and (isinstance(a, Branch) or isinstance(b, Branch)):
        return STREAM  # `if residual is not None: x = residual + x`: the stream goes on where it was added
    return merge([a, b])


@dataclass
class StreamRuns:
    """The block containers each name carries its value through, in the order the reading
    meets them (`for blk in self.encoder: x = blk(x)` then `for blk in self.decoder: x = blk(x)`).

    A name rebound from a value computed from itself keeps its run and adds the containers whose
    blocks that statement called (`x = blk(x, mask)`, `x = self.mid_norm(x)`); one rebound from
    anything else starts afresh (`x = self.mid_norm(memory)`): another stream.
    """

    #: Each run: the containers, in the order met (a container met again repeats).
    runs: list[list[ModuleNode]] = field(default_factory=list)
    #: The run (its position in `runs`) each name's value is on.
    carried: dict[str, int] = field(default_factory=dict)
    #: The names read, and the containers whose blocks were called, in the statement being read.
    read: set[str] = field(default_factory=set)
    passed: list[ModuleNode] = field(default_factory=list)

    def start_statement(self) -> None:
        self.read.clear()
        self.passed.clear()

    def block_called(self, block: ModuleNode) -> None:
        """A block of a container applied: the value handed in runs through that container."""
        if block.parent is not None and block.parent.kind in ("container", "sequential"):
            self.passed.append(block.parent)

    def bound(self, names: set[str]) -> None:
        """The names the statement just read binds."""
        for name in names:
            if name not in self.read:
                self.carried.pop(name, None)
            elif self.passed:
                if name not in self.carried:
                    self.carried[name] = len(self.runs)
                    self.runs.append([])
                self.runs[self.carried[name]].extend(self.passed)


def stored_key(owner: str, attribute: str) -> str:
    """The name under which a `forward` keeps what it stored in an attribute (`self.pos_emb =
    ...`) for the rest of the read: dotted, so no plain name meets it."""
    return f"{owner}.{attribute}"

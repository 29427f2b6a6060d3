"""Data types of the shared analysis: the model tree, the init plan, the residual stacks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

import libcst as cst

from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.analysis.values import Monomial
from initlint.config import AnalysisOptions

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.facts import WriterFacts
    from initlint.analysis.positions import LazyPositions


@dataclass(frozen=True)
class InitOp:
    """One operation in a parameter's init plan."""

    #: What sets the parameter afresh (normal, uniform, zeros, default, copy, unknown, ...), or "scale".
    kind: str
    #: The std the parameter has after this op (absolute kinds) or the factor applied ("scale").
    std: Monomial | None
    #: The call that does it; None for a constructor's own default (then the layer's line is used).
    node: cst.CSTNode | None
    #: How the op reaches the parameter, outermost first, e.g. ("GPT.__init__", "self.apply(self._init_weights)", "GPT._init_weights").
    via: tuple[str, ...] = ()
    #: False when a condition we could not decide guards it, or a call we could not follow may do it.
    certain: bool = True
    label: str = ""
    #: (id of an undecided `if` that has an `else`, 0 for its body or 1 for the rest): the op is
    #: certain within that arm. Ops of both arms make the outcome one of two known inits.
    arm: tuple[int, int] | None = None
    #: The interval a uniform draw with constant bounds fills the tensor from.
    support: tuple[float, float] | None = None


@dataclass(eq=False)
class Param:
    name: str
    owner: "ModuleNode"
    ops: list[InitOp] = field(default_factory=list)
    #: `p.dim()`, where the layer or the factory call fixes it (a Linear weight is 2-D).
    ndim: int | None = None
    #: The layer attribute each dimension's size is, where the layer fixes them (ParamDefault.dims).
    dims: tuple[str, ...] = ()
    #: Where a parameter the model's code makes from a fresh tensor is made: the statement that
    #: builds and registers it (`self.W_O = nn.Parameter(torch.empty(...))`, split over lines or
    #: not), as a layer's construction is, else the tensor's factory call. None for a layer's own.
    created_at: cst.CSTNode | None = None

    @property
    def path(self) -> str:
        prefix = self.owner.path
        return f"{prefix}.{self.name}" if prefix else self.name


@dataclass(frozen=True)
class PresetBuild:
    """A module-level function of the project that builds a root with literal flags."""

    #: the function (`speech_large`) and the literal that sets a flag (`encoder_norm_first=True`)
    name: str
    setting: str
    #: that literal, in the preset's file
    node: cst.CSTNode
    #: how many other presets build the same model (the same flags)
    others: int = 0


@dataclass(eq=False)
class ModuleNode:
    """One module instance a root class builds (a ModuleList of N blocks keeps one representative)."""

    name: str
    #: linear, embedding, norm, container, sequential, dropout, activation, attention, block, stack,
    #: module, unknown
    kind: str
    type_name: str  # qualified constructor name, or the local class name
    cls: ClassInfo | None = None
    parent: "ModuleNode | None" = None
    #: The statement or expression that created the layer (where layer findings are reported).
    created_at: cst.CSTNode | None = None
    children: dict[str, "ModuleNode"] = field(default_factory=dict)
    params: dict[str, Param] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    #: How many copies this representative stands for (a block container's depth).
    repeat: Monomial | None = None
    #: How many entries a list container was built with, None entries included: `ModuleList([norm,
    #: None])` registers the None too, and unpacking it yields it. None once entries are appended.
    slots: int | None = None
    #: Children assigned on another path of an undecided `if` (`self.encoder = A(...) if flag else B(...)`):
    #: only one exists at run time, so they are traversed too but never looked up by name.
    alternatives: list[tuple[str, "ModuleNode"]] = field(default_factory=list)
    #: Assigned under a condition the analysis could not decide, in an `__init__` that ran
    #: unconditionally (`if config.add_cross_attention: self.crossattention = ...`): may not exist.
    optional: bool = False
    #: Built on a path that always runs: only then does a condition inside its `__init__` make a child optional.
    built_certain: bool = True
    #: A part a root is handed, typed with its class (`layer: TransformerLayer`): built as that
    #: class is by default, not by the root's own code.
    handed_in: bool = False
    #: transformers' `_is_hf_initialized`: an inner model's `post_init()` already ran on it.
    hf_initialized: bool = False
    #: On roots: init functions of the model its construction never runs (something else applies them).
    uncalled_init: list[str] = field(default_factory=list)
    #: On roots: ids of the parameters whose verdict is the same if those are applied after all.
    unchanged_by_uncalled: set[int] = field(default_factory=set)
    #: On roots: of those, the ones an uncalled init draws afresh with a plain std (no depth factor
    #: either way): parameter id -> (the init function, what it leaves).
    redrawn_by_uncalled: dict[int, tuple[str, "FinalInit"]] = field(default_factory=dict)
    #: On roots: something that may initialise parameters could not be followed.
    incomplete: bool = False
    #: On roots: its construction runs init code (an init op from code, or an init function
    #: that may write weights, even one that reached nothing it could see).
    runs_init_code: bool = False
    #: On roots: a model of another project file, built because it stacks the checked file's
    #: blocks; only what the checked file decides (a writer its code builds and nothing
    #: initialises) is reported from it.
    foreign: bool = False
    #: On roots: the model that builds this class where its construction could not be unrolled
    #: (the class is analysed on its own, with its own depth argument as a symbol).
    stands_in_for: str = ""
    #: On roots: the test of the `if` choosing a child (`if config.stable_norm: self.encoder =
    #: StableEncoder(config) else: ...`) that this model takes the other way than its defaults do.
    flipped_choice: cst.BaseExpression | None = None
    #: On roots made by a module-level builder (`def build(depth, prenorm): ...`): that function.
    builder: cst.FunctionDef | None = None
    #: On roots: the preset of the project whose literal flags this model is built with.
    preset: PresetBuild | None = None
    #: Built in one arm of an undecided `if` that has an `else`: its test, and 0 for the body or
    #: 1 for the rest. The other arm may build another module under the same name.
    chosen_by: tuple[cst.BaseExpression, int] | None = None

    @property
    def path(self) -> str:
        parts: list[str] = []
        node: ModuleNode | None = self
        while node is not None and node.parent is not None:
            parts.append(node.name)
            node = node.parent
        return ".".join(reversed(parts))

    def is_under(self, ancestor: "ModuleNode") -> bool:
        """Whether this module is `ancestor` or inside it."""
        node: ModuleNode | None = self
        while node is not None and node is not ancestor:
            node = node.parent
        return node is ancestor

    def add_child(self, name: str, child: "ModuleNode") -> "ModuleNode":
        child.name = name
        child.parent = self
        self.children[name] = child
        return child

    def add_alternative(self, name: str, child: "ModuleNode") -> "ModuleNode":
        """A module another arm of an undecided `if` puts under `name`: one of them exists."""
        child.name = name
        child.parent = self
        self.alternatives.append((name, child))
        return child

    def with_alternatives(self) -> tuple["ModuleNode", ...]:
        """This module and those another arm of an undecided `if` put under its name: whichever
        the arm taken built is the one that runs."""
        parent = self.parent
        if parent is None:
            return (self,)
        return (self, *(other for name, other in parent.alternatives if name == self.name and other is not self))

    def members(self) -> list[tuple[str, "ModuleNode"]]:
        """Children, then the alternatives of an undecided `if`."""
        return list(self.children.items()) + list(self.alternatives)

    def post_order(self) -> Iterator["ModuleNode"]:
        """The order `nn.Module.apply` visits: children first, then the module itself."""
        for _, child in self.members():
            yield from child.post_order()
        yield self

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "ModuleNode"]]:
        yield prefix, self
        for name, child in self.members():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def holds_parameters(self) -> bool:
        """Whether the module or one below it (an undecided `if`'s alternatives too) has parameters."""
        return any(node.params for _, node in self.named_modules())

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Param]]:
        for name, module in self.named_modules(prefix):
            for pname, param in module.params.items():
                yield (f"{name}.{pname}" if name else pname), param

    def descend(self, relative: str) -> "ModuleNode | None":
        node: ModuleNode | None = self
        for part in relative.split(".") if relative else ():
            node = node.children.get(part) if node is not None else None
        return node


@dataclass(frozen=True)
class FinalInit:
    """What a parameter ends up with after its whole plan."""

    std: Monomial | None
    op: InitOp | None
    certain: bool
    #: Every op after the last absolute one (scales), with it.
    chain: tuple[InitOp, ...] = ()
    #: Where an undecided `if` chooses between two inits: the std each arm leaves.
    alternatives: tuple[Monomial | None, ...] = ()

    @property
    def kind(self) -> str:
        return self.op.kind if self.op else "unknown"


def final_init(param: Param) -> FinalInit:
    std: Monomial | None = None
    last: InitOp | None = None
    certain = True
    chain: list[InitOp] = []
    for op in param.ops:
        if op.kind == "scale":
            if std is not None and op.std is not None:
                std = std * op.std
            else:
                std = None
            chain.append(op)
        elif op.certain:
            # It sets the parameter afresh on every path: what earlier, uncertain ops did is gone.
            std, last, chain, certain = op.std, op, [op], True
        else:
            # An op that may or may not run leaves the outcome open.
            certain = False
            chain.append(op)
        if not op.certain:
            certain = False
        if op.kind == "unknown":
            certain = False
    if not certain:
        after = chain[1:] if chain and chain[0] is last else chain
        return _chosen_init(after) or FinalInit(std, last, certain, tuple(chain))
    return FinalInit(std, last, certain, tuple(chain))


def _chosen_init(tail: list[InitOp]) -> FinalInit | None:
    """The ops after the last certain one, when they are the two arms of one undecided `if`
    (each arm sets the parameter afresh): one of the two arms' inits, for certain."""
    arms = {op.arm for op in tail if op.kind not in ("scale", "unknown")}
    if len(arms) != 2 or None in arms or len({arm[0] for arm in arms if arm is not None}) != 1:
        return None
    if any(op.kind in ("scale", "unknown") or op.arm is None or op.certain for op in tail):
        return None
    last_of = {op.arm: op for op in tail}
    alternatives = tuple(last_of[arm].std for arm in sorted(last_of, key=lambda arm: arm[1] if arm else 0))
    return FinalInit(tail[-1].std, tail[-1], True, (tail[-1],), alternatives)


@dataclass(frozen=True)
class DeadInit:
    """An init call the interpreter skipped: its `if` test was false (a name test matching nothing)."""

    branch: cst.If
    call: cst.Call
    #: The names the branch body reads (`config.n_layer` gives `config` and `n_layer`).
    names: frozenset[str]


@dataclass
class ResidualAdd:
    """`x = x + branch(...)` in a block's forward, with the writers its branch ends in."""

    #: The `forward` that makes it: `Block.forward`, or a library block's own.
    forward: str
    node: cst.CSTNode  # the `+` expression (or the augmented assignment)
    statement: cst.CSTNode
    writers: list["WriterRef"] = field(default_factory=list)
    prenorm: bool | None = None
    #: A learned gate (LayerScale, ReZero alpha) multiplies the branch.
    gated: bool = False
    #: Modules whose later outputs multiply the branch (an adaptive norm's gate): a deliberate
    #: gate only where their layers start at zero or small (adaLN-Zero), as `stacks.py` decides.
    gate_layers: tuple["ModuleNode", ...] = ()
    #: Learned gates multiplying the branch whose start the init plan decides (`gates.py`); where
    #: the add stays ungated, each starts at a value of order one.
    gate_params: tuple[Param, ...] = ()
    #: Behind an undecided test, through a layer that may not exist (cross-attention off by
    #: default): not on the default path, so not counted in N.
    optional: bool = False
    #: The symbols (a root's parameters: `prenorm`) of the undecided tests the add is made under.
    flags: frozenset[str] = frozenset()
    #: The arms of those tests it is made in, outermost first: (an id of the `if`, 0 for its body
    #: or 1 for the rest). Adds in two arms of one `if` are alternatives: one of them runs.
    arms: tuple[tuple[int, int], ...] = ()
    #: The child of a classless block whose `forward` makes the add (`nn.Sequential(Residual(attn),
    #: Residual(ff))` runs one statement twice: two adds).
    site: str = ""
    #: The part of a split stream it adds into (`x1` of `x1, x2 = x.chunk(2, dim=-1)`: a reversible
    #: block adds one branch into each half); empty for the whole stream.
    share: str = ""
    #: The loop over a slice of the block list that made it (`for blk in self.layers[k:]`), by
    #: id; 0 where the whole list is walked. Adds of loops over two slices are alternatives.
    part: int = 0
    #: The statements inside the helpers it was made in, innermost last, where it was made in a
    #: helper (`statement` is then the call): two adds of one helper are two statements.
    inner: tuple[int, ...] = ()
    #: The second stream it adds into, where a block hands back two it adds into (a joint block's
    #: image tokens beside the text ones, a pair representation beside the atoms); empty for the
    #: first. Each stream sums its own adds over depth.
    stream: str = ""


@dataclass
class RuntimeScale:
    """A constant multiplying or dividing a writer's output before it reaches the stream."""

    node: cst.CSTNode
    factor: Monomial
    source: str


@dataclass
class WriterRef:
    """A layer whose output is added into the residual stream, relative to the block."""

    path: str  # e.g. "attn.c_proj"
    #: The class whose `__init__` creates it (a library block: its qualified name).
    creator: str
    attr: str
    #: "data flow", "name", or "library" (the registry knows the library block's `forward`).
    found_by: str
    scales: list[RuntimeScale] = field(default_factory=list)
    #: The parameter written: a layer's `weight`, or a matrix parameter of the module at `path`
    #: (MoE experts stored as one 3-D tensor, `down_proj`).
    param: str = "weight"
    #: The layer (or matrix owner) found by data flow: of two modules one undecided `if` puts
    #: under one name, the path names both.
    layer: "ModuleNode | None" = field(default=None, compare=False, repr=False)

    @property
    def display(self) -> str:
        """The writer as a message names it, relative to the block: `mlp.experts.down_proj`."""
        return self.path if self.param == "weight" else f"{self.path}.{self.param}"


@dataclass
class Writer:
    """A residual writer in a concrete model tree."""

    ref: WriterRef
    add: ResidualAdd
    node: ModuleNode

    @property
    def weight(self) -> Param | None:
        return self.node.params.get(self.ref.param)

    @property
    def created_at(self) -> cst.CSTNode | None:
        """Where the written matrix is made: the layer's construction, or the parameter's."""
        if self.ref.param == "weight":
            return self.node.created_at
        weight = self.weight
        if weight is not None and weight.created_at is not None:
            return weight.created_at
        made = [op.node for op in weight.ops[:1] if op.node is not None] if weight is not None else []
        return made[0] if made else self.node.created_at

    @property
    def place_in_construction(self) -> str:
        """Where the written matrix sits inside the construction that made it, the same in every
        tree built from that code: `c_proj.weight` for a layer built on its own,
        `encoder.layers.0.self_attn.out_proj.weight` for one a library model builds inside itself."""
        made, parts = self.node.created_at, [self.ref.param]
        node: ModuleNode | None = self.node
        while node is not None and node.parent is not None and node.created_at is made:
            parts.append(node.name)
            node = node.parent
        return ".".join(reversed(parts))


@dataclass
class Stack:
    """A root model's residual stack: the repeated blocks and what writes into the stream."""

    root: ModuleNode
    container: ModuleNode
    block: ModuleNode
    depth: Monomial
    depth_source: str
    adds: list[ResidualAdd]
    writers: list[Writer]
    #: The std most ordinary (non-writer) linear weights of the model end with, if they agree.
    reference_std: Monomial | None = None
    #: The containers one stream runs through in turn, this one among them (`for blk in
    #: self.encoder: x = blk(x)` then `for blk in self.decoder: x = blk(x)`), and N over them all
    #: (`2 * n_enc + 2 * n_dec`); empty where the stream runs through this container alone.
    stream: tuple[str, ...] = ()
    stream_adds: str = ""

    @property
    def default_adds(self) -> list[ResidualAdd]:
        """The adds on the default path: what N counts (the runtime derives N the same way)."""
        return [add for add in self.adds if not add.optional]

    @property
    def path_adds(self) -> list[ResidualAdd]:
        """The adds N counts, one per add site: each block's adds on one path through its
        `forward`, into the whole stream and into the part of a split stream that takes the most
        (a reversible block, one branch into each half, adds once)."""
        sites = {(add.share, add.site, id(add.statement), add.inner): add for add in self.default_adds}
        streams: dict[str, list[ResidualAdd]] = {}
        for add in _one_part(list(sites.values())):
            streams.setdefault(add.stream, []).append(add)
        # (A block handing back two streams: N is that of the stream that takes the most.)
        return max((_adds_into_one_stream(adds) for adds in streams.values()), key=len, default=[])

    @property
    def adds_per_block(self) -> int:
        return len(self.path_adds)

    @property
    def prenorm(self) -> bool:
        adds = self.default_adds
        return bool(adds) and all(add.prenorm for add in adds)


def _one_part(adds: list[ResidualAdd]) -> list[ResidualAdd]:
    """Loops over slices of the block list (`self.layers[:k]`, then `self.layers[k:]`, an early
    exit) each run some of the blocks: their adds are alternatives, and those of the loop that
    adds the most count, beside the adds of loops over the whole list."""
    parts: dict[int, list[ResidualAdd]] = {}
    for add in adds:
        parts.setdefault(add.part, []).append(add)
    whole = parts.pop(0, [])
    return whole + max(parts.values(), key=lambda part: len(adds_on_one_path(part)), default=[])


def _adds_into_one_stream(adds: list[ResidualAdd]) -> list[ResidualAdd]:
    """The adds into one stream N counts: those into the whole of it and those into the part of
    it split off that takes the most, each on one path through the `forward`."""
    shares: dict[str, list[ResidualAdd]] = {}
    for add in adds:
        shares.setdefault(add.share, []).append(add)
    whole = adds_on_one_path(shares.pop("", []))
    widest: list[ResidualAdd] = max((adds_on_one_path(part) for part in shares.values()), key=len, default=[])
    return whole + widest


def adds_on_one_path(adds: list[ResidualAdd], level: int = 0) -> list[ResidualAdd]:
    """The adds that run on one path through a `forward`, given the arms each is made in: those
    under no further `if`, and for each `if` those of the arm that makes the most."""
    path = [add for add in adds if len(add.arms) == level]
    by_test: dict[int, dict[int, list[ResidualAdd]]] = {}
    for add in adds:
        if len(add.arms) > level:
            test, arm = add.arms[level]
            by_test.setdefault(test, {}).setdefault(arm, []).append(add)
    for by_arm in by_test.values():
        longest: list[ResidualAdd] = max((adds_on_one_path(group, level + 1) for group in by_arm.values()), key=len)
        path += longest
    return path


@dataclass
class Analysis:
    module: cst.Module
    options: AnalysisOptions
    index: ModuleIndex = field(default_factory=ModuleIndex)
    roots: list[ModuleNode] = field(default_factory=list)
    stacks: list[Stack] = field(default_factory=list)
    #: Lists of blocks their owner's loop runs side by side (no block takes another's output):
    #: not stacks, kept for `explain` to say why their writers owe no depth factor.
    side_by_side: list[Stack] = field(default_factory=list)
    #: Output heads of the roots: linear layers applied last to what `forward` returns.
    heads: list[ModuleNode] = field(default_factory=list)
    depth_atoms: frozenset[str] = frozenset()
    #: The file deliberately uses a scheme with its own rules (muP, unit scaling).
    deliberate_scheme: str | None = None
    #: Enum-valued config fields the analysis read at their defaults, with the default's node.
    enum_defaults: dict[str, cst.CSTNode] = field(default_factory=dict)
    #: Init calls under `if` statements of init code whose test never passed.
    dead_inits: list["DeadInit"] = field(default_factory=list)
    #: Per-writer facts the rules share (`facts.writer_facts`), computed on first use.
    writer_facts: "list[WriterFacts] | None" = field(default=None, repr=False)

    #: The text the module was parsed from, when the caller has it (cheaper positions).
    source: str | None = field(default=None, repr=False)
    _positions: "LazyPositions | None" = field(default=None, repr=False)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def positions(self) -> "LazyPositions":
        """LibCST positions, computed once and only for files that have something to report."""
        if self._positions is None:
            from initlint.analysis.positions import LazyPositions

            classes = {
                id(node.cls): node.cls
                for stack in self.stacks
                for _, node in stack.root.named_modules()
                if node.cls is not None
            }
            hints = tuple(cls.node for cls in classes.values()) + tuple(
                method
                for cls in classes.values()
                for name, method in cls.methods.items()
                if name in ("__init__", "forward", "_init_weights")
            )
            self._positions = LazyPositions(self.module, self.source, hints)
        return self._positions

    def line_of(self, node: cst.CSTNode) -> int:
        code_range = self.positions().get(node)
        return code_range.start.line if code_range is not None else 0


def display_parameters(root: ModuleNode) -> list[tuple[str, Param, list[str]]]:
    """(display name, param, tied-to names) with repeated blocks shown as `*`: `transformer.h.*.attn.c_proj.weight`."""
    names: dict[int, list[str]] = {}
    order: list[Param] = []

    def walk(node: ModuleNode, prefix: str) -> None:
        for pname, param in node.params.items():
            if id(param) not in names:
                names[id(param)] = []
                order.append(param)
            names[id(param)].append(f"{prefix}{pname}")
        for cname, child in node.members():
            walk(child, f"{prefix}{'*' if child.repeat is not None else cname}.")

    walk(root, "")
    return [(names[id(p)][0], p, names[id(p)][1:]) for p in order]

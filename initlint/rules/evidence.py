"""How INI001–INI003 show their reasoning: a headline that fits, and evidence steps at the init
that decides, the residual add in `forward`, and the depth of the stack."""

from __future__ import annotations

import libcst as cst

from initlint.analysis.facts import WriterFacts, each_possible_std
from initlint.analysis.gates import gate_start
from initlint.analysis.model import (
    Analysis,
    InitOp,
    ModuleNode,
    Param,
    PresetBuild,
    ResidualAdd,
    Stack,
    display_parameters,
    final_init,
)
from initlint.analysis.values import Monomial
from initlint.rules.base import EvidenceSpec

HEADLINE_LIMIT = 100


def short(text: str, limit: int = 70) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    boundary = max(cut.rfind(" "), cut.rfind("."), cut.rfind("("))
    return (cut[:boundary] if boundary > limit // 2 else cut).rstrip() + "..."


def headline(*variants: str) -> str:
    """The most detailed variant that fits the headline limit; the last one is the shortest."""
    for variant in variants:
        if len(variant) <= HEADLINE_LIMIT:
            return variant
    return short(variants[-1], HEADLINE_LIMIT)


def describe_std(std: Monomial | None) -> str:
    return std.describe().removeprefix("1*") if std is not None else "unknown"


def describe_op(analysis: Analysis, op: InitOp | None) -> str:
    if op is None:
        return "an init initlint could not determine"
    if op.node is None:
        return f"{op.label}; no init code in this file reaches it"
    route = " -> ".join(step for step in op.via if step)
    route = f", via {short(route, 120)}" if route else ""
    return f"{op.label} at line {analysis.line_of(op.node)}{route}"


def init_step(analysis: Analysis, facts: WriterFacts) -> EvidenceSpec:
    """The init that decides the writer's std (its constructor when nothing else reaches it)."""
    op = facts.final.op if facts.final is not None else None
    later = _later_choices(facts)
    if op is not None and op.node is None and later:
        return EvidenceSpec(f"`{facts.pattern}`'s weight ends with {op.label}{later}", facts.writer.created_at)
    if op is None or op.node is None:
        return EvidenceSpec(
            f"`{facts.pattern}`'s weight ends with {describe_op(analysis, op)}", facts.writer.created_at
        )
    route = " -> ".join(step for step in op.via if step)
    via = f" (via {short(route, 120)})" if route else ""
    if facts.final is not None and facts.final.alternatives:
        via += "; the other arm of that undecided `if` scales it no differently"
    return EvidenceSpec(f"`{facts.pattern}`'s weight ends with {op.label}{via}{later}", op.node)


def _later_choices(facts: WriterFacts) -> str:
    """The inits undecided tests may run after the one named (`init_type` not known), where none
    of them scales the writer differently."""
    if facts.final is None or facts.scaling is None or not each_possible_std(facts.final):
        return ""
    later = ", ".join(sorted({op.label or op.kind for op in facts.final.chain[1:]}))
    return f", unless tests the analysis cannot decide run {short(later, 80)} after it: none scales it differently"


def default_config_step(analysis: Analysis) -> EvidenceSpec | None:
    """The enum switches the analysis took at the config's defaults (`init_fn = InitFnType.normal`)."""
    if not analysis.enum_defaults:
        return None
    # The init scheme's own switch first (`init_fn`), then the structure's (`block_type`).
    names = sorted(analysis.enum_defaults, key=lambda name: "init" not in name.partition(" = ")[0].lower())
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    listed = ", ".join(f"`{name}`" for name in names[:3])
    return EvidenceSpec(f"as the default config builds it: {listed}{more}", analysis.enum_defaults[names[0]])


def add_step(analysis: Analysis, add: ResidualAdd) -> EvidenceSpec:
    return EvidenceSpec(
        f"added into the residual stream in {add.forward}: `{short(analysis.code(add.statement))}`",
        add.statement,
    )


def gate_steps(add: ResidualAdd) -> list[EvidenceSpec]:
    """The learned gates the branch is multiplied by, each starting at a value of order one: why
    the add counts as ungated."""
    steps = []
    for param in add.gate_params:
        op, start = final_init(param).op, gate_start(param)
        if op is not None and op.node is not None and start is not None:
            message = f"the branch's learned gate `{param.name}` starts at {start:g}, not small: the branch keeps its writer's scale"
            steps.append(EvidenceSpec(message, op.node))
    return steps


def depth_step(stack: Stack, residual_adds: str) -> EvidenceSpec:
    adds = stack.adds_per_block
    # A reversible block adds one branch into each half of its split stream: N counts the adds
    # each half takes, not all the block makes.
    split = bool(stack.default_adds) and all(add.share for add in stack.default_adds)
    where = " into each part of the split stream" if split else " each"
    if len({add.stream for add in stack.default_adds}) > 1:
        where = " into the busier of its two streams"
    message = (
        f"{stack.block.type_name} x {stack.depth_source.removeprefix('1*')} blocks, "
        f"{adds} residual add{'s' if adds != 1 else ''}{where}: N = {residual_adds}"
    )
    if stack.stream:
        message += f" over the lists the stream runs through ({', '.join(stack.stream)})"
    return EvidenceSpec(message, stack.block.created_at)


def dead_depth_scaling(analysis: Analysis) -> EvidenceSpec | None:
    """Depth-scaled init code guarded by a test that never passed, e.g. a name test matching nothing."""
    for dead in analysis.dead_inits:
        if dead.names & analysis.depth_atoms:
            test = short(analysis.code(dead.branch.test), 60)
            return EvidenceSpec(
                f"the depth-scaled init under `if {test}` never runs: its test matches no parameter", dead.call
            )
    return None


def misdirected_depth_scaling(analysis: Analysis, stack: Stack) -> tuple[str, EvidenceSpec] | None:
    """A depth-scaled init that lands on parameters other than the writers' weights: the layer
    it reaches instead (`layers.*.mlp.w2`), and the evidence naming its parameter."""
    writer_weights = {id(writer.weight) for writer in stack.writers if writer.weight is not None}
    for name, param, _ in display_parameters(stack.root):
        if id(param) in writer_weights:
            continue
        for op in param.ops:
            if op.node is not None and _has_depth(analysis, op) and final_init(param).op is op:
                layer = name.rpartition(".")[0]
                return layer, EvidenceSpec(f"the depth-scaled init here reaches `{name}` instead", op.node)
    return None


def _has_depth(analysis: Analysis, op: InitOp) -> bool:
    return op.std is not None and any(atom in analysis.depth_atoms for atom in op.std.atom_names())


def overwritten_depth_scaling(analysis: Analysis, weight: Param) -> EvidenceSpec | None:
    """The writer did get a depth-scaled init, but a later op replaced it."""
    final = final_init(weight)
    for op in weight.ops:
        if op is final.op:
            break
        if op.node is not None and _has_depth(analysis, op):
            return EvidenceSpec("this depth-scaled init of the writer is overwritten by the later one", op.node)
    return None


#: A model built with a child-choosing `if` taken the other way (`ModuleNode.flipped_choice`).
FLIPPED_CHOICE_TEXT = (
    "as built with this test taken the other way than its defaults take it: a model a user builds by setting it"
)


def preset_text(preset: PresetBuild) -> str:
    """Which preset of the project builds the model a finding is about (`ModuleNode.preset`)."""
    others = f" (and {preset.others} more presets with the same flags)" if preset.others else ""
    return f"as the preset `{preset.name}` builds it: `{preset.setting}` here{others}"


def stands_in_for_text(root: ModuleNode) -> str:
    """What a stack class analysed on its own assumes (`ModuleNode.stands_in_for`)."""
    outer = root.stands_in_for
    return (
        f"assumed: `{root.type_name}` analysed on its own with its depth argument as a symbol, as `{outer}`"
        f" builds it where the depth cannot be read; no init code of `{outer}` reaches it"
    )


def chosen_arm_step(analysis: Analysis, node: ModuleNode) -> EvidenceSpec | None:
    """The writer, or a module holding it, is what one arm of an undecided `if` builds, and the
    other arm builds another module under that name: which one a user gets is theirs to set."""
    current: ModuleNode | None = node
    while current is not None and current.parent is not None:
        parent = current.parent
        others = [other for name, other in parent.members() if name == current.name and other is not current]
        if current.chosen_by is not None and others:
            test, arm = current.chosen_by
            code = code_of(analysis, test, 60)
            return EvidenceSpec(
                f"built where `{code}` is {'false' if arm else 'true'} (a test left undecided): "
                f"the other arm builds `{others[0].type_name}` as `{current.name}`",
                test,
            )
        current = current.parent
    return None


def code_of(analysis: Analysis, node: cst.CSTNode, limit: int) -> str:
    return short(analysis.code(node), limit)

"""INI001: a residual writer of a pre-norm stack whose final init has no depth factor.

Its examples (with the headlines and evidence they must produce) are in tests/fixtures/rules/INI001/.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from initlint.analysis.facts import WriterFacts, writer_facts
from initlint.analysis.model import Analysis, ModuleNode
from initlint.rules.base import EvidenceSpec, Rule, Violation
from initlint.rules.evidence import (
    add_step,
    gate_steps,
    chosen_arm_step,
    code_of,
    dead_depth_scaling,
    default_config_step,
    depth_step,
    describe_std,
    headline,
    init_step,
    misdirected_depth_scaling,
    overwritten_depth_scaling,
    preset_text,
    stands_in_for_text,
    FLIPPED_CHOICE_TEXT,
)


class UnscaledResidualProjection(Rule):
    code = "INI001"
    name = "unscaled-residual-projection"
    summary = "A layer that writes into the residual stream is initialised without a depth factor."
    docs = """
## What it does
Finds the layers whose output is added into the residual stream of a pre-norm transformer (the
attention output projection and the MLP down projection, found by following `forward`), works out
the init each one really ends with (constructor defaults, `self.apply(...)`, `post_init()`,
`named_parameters()` loops and their name tests, direct `nn.init` calls, in order), and reports a
writer whose final std does not shrink with depth. That includes a writer nothing initialises (so
PyTorch's default applies) and scaling code that exists but never reaches the layer (a name test
that matches nothing, a special init overwritten by a later generic one). A writer the model's own
code allocates with `torch.empty` and never fills is reported where the model's code draws other
parameters (its init leaves this one out); where it draws none, as in inference code whose weights
a checkpoint fills, the writer is only allocated, and it is not judged.

## Why is this bad?
Each block adds two branches into the stream. With every branch drawn at the same std, the stream's
variance grows with depth (v = 1 + 2L·σ²); GPT-2 (Radford et al. 2019, sec. 2.3) scales the writers
by 1/sqrt(N) with N = 2·n_layer so the total stays O(1). Without it deep models start with an
exploding residual stream and train unstably.

## Example
```python
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.bias"):          # never the writer's weight
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
```

## Use instead
```python
for pn, p in self.named_parameters():
    if pn.endswith("c_proj.weight"):
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
```
Zero-initialised writers, per-layer `1/sqrt(2(l+1))`, `1/L` small init, DeepNorm and muP are
deliberate schemes and are not reported. Post-norm stacks (`norm(x + f(x))`) are not reported.

## Fix safety
No automatic fix: where the scaling belongs depends on how the model is initialised.
"""

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        # A layer (one line of code) may be a writer of several roots: each root builds its own
        # copies, so a root that leaves all of them unscaled is wrong whatever another root does.
        # A root that scales some copies and not others is not reported: the analysis may have
        # told one stack apart from itself (`resblocks` and `resblocks[:-1]`), unless the unscaled
        # copies sit in a stack of their own (`_beside_scaled_copies`).
        verdicts: dict[tuple[int, str], list[tuple[WriterFacts, bool]]] = {}
        for facts in writer_facts(analysis):
            created = facts.writer.created_at
            if facts.weight is None or created is None or not facts.in_prenorm_stream or _may_be_reinit(facts):
                continue  # initialised by code outside this construction path, or not this rule's setting
            unscaled = (
                facts.scaling is not None and facts.scaling.kind in ("none", "negligible") and not facts.runtime_scales
            )
            made_as = (id(created), facts.writer.place_in_construction)
            verdicts.setdefault(made_as, []).append((facts, unscaled))
        for found in verdicts.values():
            # A model of another file that may not build this layer cannot clear it.
            scaling = {
                id(facts.stack.root)
                for facts, unscaled in found
                if not unscaled and not (facts.stack.root.foreign and _may_lack_writer(facts))
            }
            if scaling and any(facts.stack.root.foreign for facts, _ in found):
                continue  # models of other files that stack this file's blocks must all agree
            wrong = [facts for facts, unscaled in found if unscaled and id(facts.stack.root) not in scaling]
            scaled_copy = None
            if not wrong:
                wrong, scaled_copy = _beside_scaled_copies(found)
            if wrong:
                root = wrong[0].stack.root
                assert wrong[0].writer.created_at is not None
                others = {
                    _root_name(facts): _scales(facts)
                    for facts, _ in found
                    if id(facts.stack.root) in scaling and facts.stack.root is not root
                }
                yield self._violation(analysis, wrong[0], wrong[0].writer.created_at, others, scaled_copy)

    def _violation(
        self,
        analysis: Analysis,
        facts: WriterFacts,
        created: cst.CSTNode,
        others: dict[str, bool],
        scaled_copy: WriterFacts | None = None,
    ) -> Violation:
        n = facts.residual_adds
        scaling = facts.scaling
        message = _headline(facts)
        steps = [init_step(analysis, facts), *_drawn_step(facts)]
        steps += [add_step(analysis, facts.writer.add), *gate_steps(facts.writer.add)]
        steps.append(depth_step(facts.stack, n))
        if scaling is not None and scaling.kind == "negligible" and scaling.power is not None:
            code = code_of(analysis, scaling.power.node, 60)
            steps.append(
                EvidenceSpec(
                    f"`{code}` raises the depth to a power near 0, not -1/2 (a typo for -0.5?)", scaling.power.node
                )
            )
        steps.extend(_how_found(facts, created))
        arm = chosen_arm_step(analysis, facts.writer.node)
        if arm is not None:
            steps.append(arm)
        if others:
            steps.append(_root_step(facts, others))
        if scaled_copy is not None:
            steps.append(_scaled_copy_step(scaled_copy))
        defaults = default_config_step(analysis)
        if defaults is not None:
            steps.append(defaults)
        reason, layers = _reason(analysis, facts, misdirected=scaled_copy is None)
        if reason is not None:
            steps.append(reason)
        help_text = f"initialise `{facts.pattern}` with std/sqrt({n}) (GPT-2), or zero-initialise it"
        # The finding names the writer, so it belongs to the file that builds it, wherever the init
        # code lies: one place per project, whichever files a run checks (flake8 and pre-commit
        # check one at a time), as in a single file.
        return Violation(
            created,
            message,
            {"layer": facts.pattern, "layers": layers},
            evidence=tuple(steps),
            help=help_text,
            owner=created,
        )


def _headline(facts: WriterFacts) -> str:
    """What is wrong with the writer's std, in the shortest form that fits the headline."""
    std, n = describe_std(facts.final.std if facts.final else None), facts.residual_adds
    ref, final, scaling = facts.writer.ref, facts.final, facts.scaling
    if scaling is not None and scaling.kind == "negligible" and final is not None and final.std is not None:
        exponent = final.std.exponent(scaling.atom or "")
        claims = [
            f"depth factor {scaling.atom}^{exponent} too weak for 1/sqrt({{n}})",
            f"init std {std} has no effective depth factor",
        ]
    elif final is not None and final.kind == "empty":
        claims = ["is left uninitialised (torch.empty): no depth factor 1/sqrt({n})", "is left uninitialised"]
    else:
        details = (f" std {std}", "") if final is not None and final.std is not None and final.certain else ("",)
        claims = [f"init{detail} has no depth factor 1/sqrt({{n}})" for detail in details]
    variants = [
        f"residual writer `{name}` {claim.format(n=n)}"
        for name in (facts.pattern, ref.display, ref.attr)
        for claim in claims
    ]
    preset = facts.stack.root.preset
    # The model only a preset builds: the headline names it where it fits.
    named = [f"{variant} (preset `{preset.name}`)" for variant in variants] if preset is not None else []
    return headline(*named, *variants)


def _drawn_step(facts: WriterFacts) -> list[EvidenceSpec]:
    """For a writer left as `torch.empty` made it: the model's own init code that draws another
    parameter, which tells an init that leaves the writer out from weights loaded later."""
    if facts.drawn_beside is None or facts.drawn_beside[1].node is None:
        return []
    name, op, allocated_alike = facts.drawn_beside
    alike = " (also made with torch.empty)" if allocated_alike else ""
    drawn = f" with {op.label}" if op.label else ""
    return [
        EvidenceSpec(f"the model's own init code draws `{name}`{alike}{drawn} here; none draws the writer", op.node)
    ]


def _how_found(facts: WriterFacts, created: cst.CSTNode) -> list[EvidenceSpec]:
    """What the finding assumes: a writer found by its name, a model from another file."""
    steps = []
    if facts.writer.ref.found_by != "data flow":
        steps.append(EvidenceSpec("found by its name: the data flow into it could not be followed", created))
    root = facts.stack.root
    if root.foreign:
        steps.append(EvidenceSpec(f"as built by `{root.type_name}`, which stacks this file's blocks", root.created_at))
    redrawn = root.redrawn_by_uncalled.get(id(facts.weight)) if facts.weight is not None else None
    if redrawn is not None:
        name, final = redrawn
        where = final.op.node if final.op is not None and final.op.node is not None else created
        steps.append(
            EvidenceSpec(
                f"`{name}`, left to a trainer to apply, would draw it with std {describe_std(final.std)}: no depth factor either",
                where,
            )
        )
    if root.stands_in_for:
        steps.append(EvidenceSpec(stands_in_for_text(root), root.created_at))
    if root.flipped_choice is not None:
        steps.append(EvidenceSpec(FLIPPED_CHOICE_TEXT, root.flipped_choice))
    if root.preset is not None:
        steps.append(EvidenceSpec(preset_text(root.preset), root.preset.node))
    return steps


def _may_be_reinit(facts: WriterFacts) -> bool:
    """An init the construction never runs may still be applied, unless running it leaves the
    writer's init as it is."""
    root = facts.stack.root
    return bool(root.uncalled_init) and (facts.weight is None or id(facts.weight) not in root.unchanged_by_uncalled)


def _may_lack_writer(facts: WriterFacts) -> bool:
    """The writer, or a module holding it, is built on a path of an `if` the analysis could not
    decide: the model built with its defaults may not hold this layer at all."""
    node: ModuleNode | None = facts.writer.node
    while node is not None:
        if not node.built_certain or node.optional:
            return True
        node = node.parent
    return False


def _beside_scaled_copies(found: list[tuple[WriterFacts, bool]]) -> tuple[list[WriterFacts], WriterFacts | None]:
    """Unscaled copies of a layer in a stack of their own, where the same root scales the copies
    of another stack (an encoder and a decoder built from one block class, the depth-scaled init
    switched on for the decoder only): each copy certainly built, the scaled ones certainly
    depth-scaled, none at the same place in the model (where one stack may have been read twice)."""
    for facts, unscaled in found:
        siblings = [other for other, _ in found if other.stack.root is facts.stack.root and other is not facts]
        if not unscaled or not siblings or _may_lack_writer(facts):
            continue
        scaled = [other for other, other_unscaled in found if other in siblings and not other_unscaled]
        if not scaled or any(_may_lack_writer(other) for other in scaled):
            continue
        certain = all(other.scaling is not None and other.scaling.has_depth_factor for other in scaled)
        if certain and all(other.pattern != facts.pattern for other in siblings):
            return [facts], scaled[0]
    return [], None


def _scaled_copy_step(scaled: WriterFacts) -> EvidenceSpec:
    """Where another copy of the same layer, in another stack of the same model, is depth-scaled."""
    op = scaled.final.op if scaled.final is not None else None
    where = op.node if op is not None and op.node is not None else scaled.writer.created_at
    return EvidenceSpec(
        f"`{scaled.pattern}`, built by the same code, is depth-scaled here; this copy's construction never reaches it",
        where,
    )


def _root_name(facts: WriterFacts) -> str:
    return facts.stack.root.type_name or facts.stack.root.name


def _scales(facts: WriterFacts) -> bool:
    return facts.scaling is not None and facts.scaling.kind not in ("none", "negligible")


def _root_step(facts: WriterFacts, others: dict[str, bool]) -> EvidenceSpec:
    """Which root the finding is about, where other roots build the same layer (the rest of
    them scale it, or their init could not be decided)."""
    scaled = sorted(name for name, scales in others.items() if scales)
    message = f"`{_root_name(facts)}` builds its own copies of this layer and leaves every one unscaled"
    if scaled:
        names = ", ".join(f"`{name}`" for name in scaled)
        message += f"; {names} (same layer) scale{'s' if len(scaled) == 1 else ''} theirs"
    undecided = sorted(name for name, scales in others.items() if not scales)
    if undecided:
        message += f"; for {', '.join(f'`{name}`' for name in undecided)} it is undecided"
    return EvidenceSpec(message, facts.stack.root.created_at)


def _reason(analysis: Analysis, facts: WriterFacts, misdirected: bool = True) -> tuple[EvidenceSpec | None, list[str]]:
    """Why the depth factor is missing, and every layer the finding names (`details["layers"]`):
    the writer, and the layer a misdirected depth-scaled init reaches instead (not asked where
    the scaled init reaches another copy of this very layer: that step says so already)."""
    weight = facts.weight
    reason = (overwritten_depth_scaling(analysis, weight) if weight is not None else None) or dead_depth_scaling(
        analysis
    )
    if reason is not None:
        return reason, [facts.pattern]
    elsewhere = misdirected_depth_scaling(analysis, facts.stack) if misdirected else None
    if elsewhere is None:
        return None, [facts.pattern]
    return elsewhere[1], [facts.pattern, elsewhere[0]]

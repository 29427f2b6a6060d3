"""INI001: a residual writer of a pre-norm stack whose final init has no depth factor."""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import is_depth_atom, is_width_atom, stack_scaling
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import describe_add, describe_op, writer_pattern


def has_runtime_depth_scale(analysis: Analysis, writer) -> bool:
    return any(
        any(is_depth_atom(name, analysis.depth_atoms) or is_width_atom(name) for name in scale.factor.atom_names())
        for scale in writer.ref.scales
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
that matches nothing, a special init overwritten by a later generic one).

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
    good_examples = ()
    bad_examples = ()

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        verdicts: dict[int, list] = {}
        for stack in analysis.stacks:
            if stack.root.attrs.get("@uncalled_init"):
                continue  # the model is initialised by code outside this construction path
            for writer in stack.writers:
                weight = writer.weight
                created = writer.node.created_at
                if weight is None or created is None or not writer.add.prenorm or writer.add.gated:
                    continue
                final = final_init(weight)
                if not final.certain or has_runtime_depth_scale(analysis, writer):
                    verdicts.setdefault(id(created), []).append(None)
                    continue
                scaling = stack_scaling(analysis, stack, final.std)
                if scaling.kind != "none":
                    verdicts.setdefault(id(created), []).append(None)
                    continue
                message = (
                    f"residual writer `{writer_pattern(stack, writer)}` is added into the stream "
                    f"({describe_add(analysis, writer.add)}) but its weight ends with "
                    f"{describe_op(analysis, final.op)}: no depth factor; GPT-2 uses std/sqrt(2 * {stack.depth_source.removeprefix('1*')}) "
                    f"for residual writers"
                )
                verdicts.setdefault(id(created), []).append(Violation(created, message, {"layer": writer_pattern(stack, writer)}))
        for found in verdicts.values():
            if all(v is not None for v in found):
                yield found[0]

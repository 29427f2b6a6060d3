"""INI003: a residual branch divided or multiplied by a depth/width constant in forward."""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import is_depth_atom, is_width_atom, stack_scaling
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import describe_add, describe_op, short, writer_pattern


class RuntimeResidualScaling(Rule):
    code = "INI003"
    name = "runtime-residual-scaling"
    summary = "A residual branch is scaled by a depth or width constant in forward instead of (or on top of) its init."
    docs = """
## What it does
Reports a constant built from the depth or width (`/ math.sqrt(2 * self.n_layer)`,
`* self.residual_scale`) that multiplies a residual writer's output on its way into the stream,
inside `forward`. The message says whether the writer's init is also depth-scaled.

## Why is this bad?
GPT-2's recipe is a one-time scale of the initial weights. Dividing the branch at run time as well
scales it twice (the stream then barely moves at initialisation: its variance after the last block
drops by the same factor again), and a runtime gate alone also shrinks the gradient reaching the
writer for the whole of training, which the init scale does not.

## Example
```python
def forward(self, x):
    return self.c_proj(y) / math.sqrt(2 * self.n_layer)
```

## Use instead
```python
def forward(self, x):
    return self.c_proj(y)   # and scale c_proj's init by 1/sqrt(2 * n_layer)
```
Unit-scaling / u-muP models that scale residual branches at run time on purpose are not reported.

## Fix safety
No automatic fix: removing the factor changes the model's function.
"""

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        reported: set[int] = set()
        for stack in analysis.stacks:
            for writer in stack.writers:
                for scale in writer.ref.scales:
                    atoms = [name for name in scale.factor.atom_names() if is_depth_atom(name, analysis.depth_atoms) or is_width_atom(name)]
                    if not atoms or id(scale.node) in reported:
                        continue
                    reported.add(id(scale.node))
                    weight = writer.weight
                    final = final_init(weight) if weight is not None else None
                    scaling = stack_scaling(analysis, stack, final.std) if final is not None and final.certain else None
                    if scaling is not None and scaling.has_depth_factor:
                        verdict = f"its init is already depth-scaled ({describe_op(analysis, final.op)}): the branch is scaled twice"
                    elif scaling is not None and scaling.kind == "none":
                        verdict = f"its init is not depth-scaled ({describe_op(analysis, final.op)}): GPT-2's recipe is a one-time init scale, not a runtime gate"
                    else:
                        verdict = "initlint could not determine its init"
                    yield Violation(
                        scale.node,
                        f"`{short(analysis.code(scale.node), 60)}` scales the output of residual writer `{writer_pattern(stack, writer)}` "
                        f"at run time ({describe_add(analysis, writer.add)}); {verdict}",
                        {"layer": writer_pattern(stack, writer)},
                    )

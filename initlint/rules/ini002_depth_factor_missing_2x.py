"""INI002: depth scaling by sqrt(L) where the stack has two residual adds per block."""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.model import Analysis, final_init
from initlint.analysis.scaling import stack_scaling
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import count_adds, describe_op, short, writer_pattern


class DepthFactorMissing2x(Rule):
    code = "INI002"
    name = "depth-factor-missing-2x"
    summary = "Residual writers are scaled by 1/sqrt(n_layer) although each block adds two branches (N = 2 * n_layer)."
    docs = """
## What it does
Reports the std expression of a residual writer's init that divides by `sqrt(n_layer)` when the
block it belongs to adds two branches into the residual stream (attention and MLP), found from the
block's `forward`. Reported at the `sqrt(...)` / `** -0.5` that introduces the depth.

## Why is this bad?
GPT-2 scales by 1/sqrt(N) where N counts residual *adds*, not blocks: a sequential pre-norm block
adds twice, so N = 2 * n_layer. With N = n_layer every write is sqrt(2) too large and the stream's
variance after the last block doubles relative to the recipe. A parallel block (attention and MLP
added in one statement) has N = n_layer and is not reported.

## Example
```python
std = 0.02 / math.sqrt(config.n_layer)
```

## Use instead
```python
std = 0.02 / math.sqrt(2 * config.n_layer)
```

## Fix safety
No automatic fix yet; the change is a one-token edit inside the reported expression.
"""

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        reported: set[int] = set()
        for stack in analysis.stacks:
            if stack.adds_per_block != 2 or not stack.prenorm:
                continue
            for writer in stack.writers:
                weight = writer.weight
                if weight is None:
                    continue
                final = final_init(weight)
                if not final.certain:
                    continue
                scaling = stack_scaling(analysis, stack, final.std)
                if scaling.kind != "sqrt_l" or scaling.power is None or id(scaling.power.node) in reported:
                    continue
                reported.add(id(scaling.power.node))
                depth = scaling.atom
                yield Violation(
                    scaling.power.node,
                    f"`{short(analysis.code(scaling.power.node), 50)}` scales residual writer "
                    f"`{writer_pattern(stack, writer)}` ({describe_op(analysis, final.op)}) by 1/sqrt({depth}), but "
                    f"{stack.block.type_name} has {count_adds(analysis, stack)}: N = 2 * {depth}, so each write is "
                    f"sqrt(2) too large; use sqrt(2 * {depth})",
                    {"layer": writer_pattern(stack, writer)},
                )

"""INI002: depth scaling by sqrt(L) where the stack has two residual adds per block.

Its examples (with the headlines and evidence they must produce) are in tests/fixtures/rules/INI002/.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from initlint.analysis.facts import WriterFacts, writer_facts
from initlint.analysis.model import Analysis, ResidualAdd
from initlint.rules.base import FixSpec, Rule, Violation
from initlint.rules.evidence import add_step, code_of, depth_step, gate_steps, headline, init_step


def double_the_depth(analysis: Analysis, power: cst.CSTNode) -> FixSpec | None:
    """`math.sqrt(n_layer)` -> `math.sqrt(2 * n_layer)`; `n_layer ** -0.5` -> `(2 * n_layer) ** -0.5`."""
    if isinstance(power, cst.Call) and power.args:
        inner = power.args[0].value
        text = analysis.code(inner)
        simple = isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or bool(inner.lpar)
        replacement = f"2 * {text}" if simple else f"2 * ({text})"
    elif isinstance(power, cst.BinaryOperation) and isinstance(power.operator, cst.Power):
        inner = power.left
        # A node's position excludes its own parentheses: keep them and edit inside.
        bare = analysis.code(inner.with_changes(lpar=[], rpar=[]))
        replacement = f"2 * {bare}" if inner.lpar else f"(2 * {bare})"
    else:
        return None
    return FixSpec(f"count two residual adds per block: {replacement}", ((inner, replacement),), safe=False)


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
An unsafe fix (`--fix --unsafe-fixes`) puts the `2 *` inside the reported expression. Unsafe
because it changes the model's initial weights: that is the point, but review it.
"""

    def check(self, analysis: Analysis) -> Iterator[Violation]:
        if analysis.deliberate_scheme:
            return
        # One finding per std expression, naming every writer it scales.
        found: dict[int, list[WriterFacts]] = {}
        for facts in writer_facts(analysis):
            stack, scaling = facts.stack, facts.scaling
            if stack.root.foreign or stack.adds_per_block != 2 or not stack.prenorm or scaling is None:
                continue
            if scaling.kind == "sqrt_l" and scaling.power is not None:
                writers = found.setdefault(id(scaling.power.node), [])
                if facts.pattern not in [w.pattern for w in writers]:
                    writers.append(facts)
        for writers in found.values():
            yield self._violation(analysis, writers)

    def _violation(self, analysis: Analysis, writers: list[WriterFacts]) -> Violation:
        first = writers[0]
        assert first.scaling is not None and first.scaling.power is not None
        power, depth, block = first.scaling.power.node, first.scaling.atom, first.stack.block.type_name
        code = code_of(analysis, power, 40)
        message = headline(
            # The std is what is too large: the code may be the divisor (`math.sqrt(n_layer)`).
            f"`{code}` makes the std sqrt(2) too large: {block} adds 2 branches per block (N = 2 * {depth})",
            f"`{code}` makes the std sqrt(2) too large: N = 2 * {depth} residual adds",
            f"1/sqrt({depth}) is sqrt(2) too large: {block} adds 2 branches per block (N = 2 * {depth})",
            f"1/sqrt({depth}) is sqrt(2) too large: each block adds 2 branches (N = 2 * {depth})",
        )
        steps = [init_step(analysis, facts) for facts in writers]
        for add in _one_add_per_statement(first):
            steps.extend((add_step(analysis, add), *gate_steps(add)))
        steps.append(depth_step(first.stack, first.residual_adds))
        return Violation(
            power,
            message,
            {"layers": [facts.pattern for facts in writers]},
            double_the_depth(analysis, power),
            tuple(steps),
            f"divide by sqrt(2 * {depth}): N counts residual adds, not blocks",
        )


def _one_add_per_statement(facts: WriterFacts) -> list[ResidualAdd]:
    """The adds N counts, one per statement (`x = x + attn(x) + mlp(x)` is shown once)."""
    adds = {id(add.statement): add for add in facts.stack.path_adds}
    return list(adds.values())

"""INI003: a residual branch divided or multiplied by a depth/width constant in forward.

Its examples (with the headlines and evidence they must produce) are in tests/fixtures/rules/INI003/.
"""

from __future__ import annotations

from typing import Iterator

from initlint.analysis.facts import WriterFacts, writer_facts
from initlint.analysis.model import Analysis, RuntimeScale
from initlint.rules.base import Rule, Violation
from initlint.rules.evidence import add_step, headline, init_step, short

#: What the writer's init does -> (the headline, with `{name}` and `{factor}`; what to write instead).
VERDICTS = {
    "twice": (
        "residual writer `{name}` is scaled twice: at init and by {factor} in forward",
        "drop the factor from forward: the init already scales the writer by depth",
    ),
    "instead": (
        "residual writer `{name}` is scaled by {factor} in forward instead of at init",
        "drop the factor from forward and initialise the writer with std/sqrt(N) instead (GPT-2)",
    ),
    "unknown": (
        "residual writer `{name}` is scaled by {factor} in forward; its init is unknown",
        "scale the writer's init by 1/sqrt(N) rather than its output in forward",
    ),
}


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
        for facts in writer_facts(analysis):
            if facts.stack.root.foreign:
                continue  # the file that stacks the blocks reports it
            if facts.tuned_runtime_scale and not (facts.scaling is not None and facts.scaling.has_depth_factor):
                continue  # a designed runtime parametrisation over unscaled writers; twice is still a bug
            for scale in facts.runtime_scales:
                if id(scale.node) not in reported:
                    reported.add(id(scale.node))
                    yield self._violation(analysis, facts, scale)

    def _violation(self, analysis: Analysis, facts: WriterFacts, scale: RuntimeScale) -> Violation:
        scaling = facts.scaling
        verdict = (
            "twice"
            if scaling is not None and scaling.has_depth_factor
            else "instead"
            if scaling is not None and scaling.kind == "none"
            else "unknown"
        )
        template, help_text = VERDICTS[verdict]
        ref = facts.writer.ref
        factor = f"`{short(scale.source, 40)}`"
        message = headline(
            *(template.format(name=name, factor=factor) for name in (facts.pattern, ref.display, ref.attr)),
            template.format(name=ref.attr, factor="a factor"),
        )
        steps = (add_step(analysis, facts.writer.add), init_step(analysis, facts))
        return Violation(scale.node, message, {"layer": facts.pattern}, evidence=steps, help=help_text)

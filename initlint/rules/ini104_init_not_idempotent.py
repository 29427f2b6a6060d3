"""INI104: Runtime: calling the model's init entry point a second time changes its distributions."""

from __future__ import annotations

from initlint.rules.base import Rule


class InitNotIdempotent(Rule):
    code = "INI104"
    docs = """
## What it does
With `--runtime`, runs the public init entry point (`init_weights()`, `reset_parameters()`,
`post_init()`) twice more on the meta-device model and compares what each parameter is asked to
hold after the first and the second run (no real tensors needed). With `--materialize` (or
`verify()`) it also calls it again on a real copy and compares measured distributions.

## Why is this bad?
Frameworks call init more than once (meta-device materialisation, FSDP, `post_init` plus a user
call). An in-place rescale (`p.data.mul_(...)`) then compounds, and a generic re-init can wipe a
special one.

## Example
```python
def init_weights(self):
    for block in self.blocks:
        block.proj.weight.data.div_(math.sqrt(2 * self.n_layer))   # shrinks again each call
```

## Use instead
Draw with the final std (`normal_(std=0.02 / math.sqrt(2 * n_layer))`) instead of rescaling.

## Fix safety
No fix: reported from a run.
"""

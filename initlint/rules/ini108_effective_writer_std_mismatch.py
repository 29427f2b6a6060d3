"""INI108: Runtime: a residual writer's effective std (init times runtime factors) is off policy."""

from __future__ import annotations

from initlint.rules.base import Rule


class EffectiveWriterStdMismatch(Rule):
    code = "INI108"
    docs = """
## What it does
With `--runtime`, the forward pass records the scalar factors between a writer and its residual
add (`x + self.proj(y) / math.sqrt(2 * n_layer)`); the effective std the stream receives is the
requested std times that factor. With `--materialize` it is also measured on real tensors.

## Why is this bad?
A depth factor applied both in the init and at run time makes every weight statistic look clean
while the stream sees std/2L instead of std/sqrt(2L): the blocks barely contribute at start.

## Example
```python
torch.nn.init.normal_(self.c_proj.weight, std=0.02 / math.sqrt(2 * n_layer))
...
x = x + self.c_proj(h) / math.sqrt(2 * n_layer)      # scaled twice
```

## Use instead
Scale in one place. Unit-std weights with a runtime residual scale (u-muP) are fine: only the
effective std is judged for writers with a runtime factor.

## Fix safety
No fix: reported from a run.
"""

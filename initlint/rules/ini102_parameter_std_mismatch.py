"""INI102: Runtime: a non-writer parameter (embedding, head, linear, norm, bias) is asked for the wrong distribution."""

from __future__ import annotations

from initlint.rules.base import Rule


class ParameterStdMismatch(Rule):
    code = "INI102"
    docs = """
## What it does
With `--runtime`, compares what each parameter that is not a residual writer is asked to hold with
the policy: linears, embeddings and heads std base (0.02), biases 0, norm gains 1 *by their
effect* (a norm computing `x * (1 + w)` is right with w = 0), norm biases 0. Roles come from the
forward pass, not from names.

## Why is this bad?
An embedding tied to the head and left at nn.Embedding's default N(0, 1) gives logits ~50x too
large (step-zero loss ~46 instead of ln V ~ 5.5 at V = 256); a depth factor put on the wrong
projection (the MLP up projection instead of the down projection) shrinks a layer that should not
shrink.

## Example
```python
self.apply(self._init_weights)                       # head gets N(0, 0.02)
self.lm_head.weight = self.transformer.wte.weight    # tied afterwards: N(0, 1) wins
```

## Use instead
Tie first, then initialise (or initialise `nn.Embedding` in `_init_weights`).

## Fix safety
No fix: reported from a run.
"""

"""INI105: Runtime: building on meta and materialising gives a different model than the eager build."""

from __future__ import annotations

from initlint.rules.base import Rule


class MetaPathStateLost(Rule):
    code = "INI105"
    docs = """
## What it does
With `--materialize`, builds the model eagerly and on the meta device, materialises the meta build
with `to_empty()` and runs its init entry point (and `tie_weights()` when defined), then compares:
parameters never written, buffers not recomputed, weight ties lost, distributions changed.

## Why is this bad?
Large-model training builds on meta and materialises shard by shard. Buffers computed in
`__init__` (rotary frequencies, masks) and parameters only the constructor initialises come out as
garbage; `to_empty` breaks weight ties.

## Example
```python
self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2) / d)))   # only here
```

## Use instead
Recompute such buffers in the init entry point (`reset_parameters()`), and re-tie after materialising.

## Fix safety
No fix: reported from a run.
"""

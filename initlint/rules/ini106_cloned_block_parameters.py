"""INI106: Runtime: parameters of different blocks start with identical values."""

from __future__ import annotations

from initlint.rules.base import Rule


class ClonedBlockParameters(Rule):
    code = "INI106"
    docs = """
## What it does
With `--runtime`, the meta trace sees parameters that are copies (`copy.deepcopy`) of one
initialised tensor and never written again; with `--materialize` it also finds distinct (untied)
non-constant parameters holding exactly the same values. Typically every block of a stack built by
deep-copying one prototype.

## Why is this bad?
Identical blocks receive identical gradients and stay identical: depth is wasted.

## Example
```python
block = Block(config)
self.blocks = nn.ModuleList(copy.deepcopy(block) for _ in range(n_layer))
```

## Use instead
Construct each block, or re-run the init after copying.

## Fix safety
No fix: reported from a run.
"""

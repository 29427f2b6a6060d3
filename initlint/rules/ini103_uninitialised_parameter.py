"""INI103: Runtime: a parameter, or part of it, is never written after `torch.empty`."""

from __future__ import annotations

from initlint.rules.base import Rule


class UninitialisedParameter(Rule):
    code = "INI103"
    docs = """
## What it does
With `--runtime`, the init trace sees the factory op that created each parameter's storage; a
storage created by `torch.empty` (or `new_empty`, `empty_like`) that no later op writes in full is
reported, with the fraction left unwritten when only part was written (a padding row).

## Why is this bad?
`torch.empty` returns whatever the allocator hands out: often zeros on a fresh process, sometimes
huge values or NaN. The model trains differently run to run, or not at all.

## Example
```python
self.weight = nn.Parameter(torch.empty(dim))     # and nothing initialises it
```

## Use instead
```python
self.weight = nn.Parameter(torch.ones(dim))
```

## Fix safety
No fix: reported from a run.
"""

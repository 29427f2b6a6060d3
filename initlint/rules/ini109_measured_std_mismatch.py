"""INI109: Runtime: a materialised tensor's values do not match the distribution its init requested."""

from __future__ import annotations

from initlint.rules.base import Rule


class MeasuredStdMismatch(Rule):
    code = "INI109"
    docs = """
## What it does
With `--materialize`, measures every parameter (chunked, float64 accumulation) and tests its
sample std against the traced request (a Wilson-Hilferty-style power transform of the sample
variance, exact for the draw's shape: normal, uniform, truncated normal), Bonferroni over all
tensors (0.07% of the model's 0.1% false-alarm budget) and a practical floor (deviations under
1% are never reported); also finiteness and exact constants.

## Why is this bad?
The request and the values disagree only when something outside the traced path wrote the tensor:
a custom kernel, a load hook, a device-specific path, a broken RNG state.

## Example
Anything that overwrites parameters after construction in ways the trace cannot see.

## Use instead
Find what writes the tensor after the init (the message names it and both stds).

## Fix safety
No fix: reported from a run.
"""

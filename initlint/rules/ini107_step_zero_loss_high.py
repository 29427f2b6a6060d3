"""INI107: Runtime: the language model's loss at step zero is far above ln(vocab)."""

from __future__ import annotations

from initlint.rules.base import Rule


class StepZeroLossHigh(Rule):
    code = "INI107"
    docs = """
## What it does
With `--materialize`, runs the model on random tokens with targets drawn independently and compares
the cross-entropy with ln(vocab size). It checks the output scale (embedding and head), not depth
scaling (the final norm hides that; INI101/INI108 see it).

## Why is this bad?
A head or tied embedding at std 1 gives a loss of ~46 instead of ~5.5 (V = 256): the first steps
only shrink logits, and large early gradients can destabilise training.

## Example
```python
self.lm_head.weight = self.wte.weight    # wte left at nn.Embedding's N(0, 1)
```

## Use instead
Initialise the embedding with the base std (0.02).

## Fix safety
No fix: reported from a run.
"""

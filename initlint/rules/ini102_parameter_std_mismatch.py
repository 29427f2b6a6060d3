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
forward pass, not from names. It also reports inits the code asks for that have no effect:
`trunc_normal_` bounds more than 3 std out (its bounds are absolute: the default (-2, 2) around
std 0.02 cuts nothing), fan-in read from the wrong dimension (every weight fits 1/sqrt(shape[0]):
one finding, under the `fan-in` policy), and a deliberate init of one or two layers redrawn by a
later generic init while the model is constructed (a zero init wiped by `apply(_init_weights)`).

A layer left at PyTorch's own default (the trace sees `nn.Linear`/`nn.ConvNd` kaiming-uniform,
uniform biases, `nn.Embedding` N(0, 1) written by the layer's `reset_parameters`, nothing after)
is judged against that default, not the policy: a model that relies on it gets no finding per
layer. Two exceptions: an embedding's N(0, 1) tied to the output head (no default for a head),
and layers left at the default while the model's own init gives other layers of their kind
(linear, embedding) what the policy asks: one finding names them all, with the layers the plan
reached as evidence.

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

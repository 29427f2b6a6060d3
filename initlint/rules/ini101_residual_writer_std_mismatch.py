"""INI101: Runtime: a residual writer is asked for a std the init policy does not expect."""

from __future__ import annotations

from initlint.rules.base import Rule


class ResidualWriterStdMismatch(Rule):
    code = "INI101"
    docs = """
## What it does
Builds the model on the meta device (`--runtime`), records every init op per parameter storage,
and finds the residual writers by watching one forward pass: parameters whose matmul output is
added into the stream that starts at the embedding. It then compares the std each writer is
*asked* for (exact, no sampling) with the policy (`gpt2` by default: base/sqrt(N), N = residual
layers observed: writes whose branches read the same stream state count once, so N = 2·n_layer for
GPT blocks and n_layer for parallel attention+MLP blocks or single-branch Mamba blocks, the same
count the static rules use). The finding sits where the static rules put a writer (the statement
creating its layer, in the modeling file even when a `--factory` elsewhere builds the model); the
measurement and the init line are its evidence, and on a writer INI001/INI002 already report it
becomes evidence of that finding. The message recognises the usual causes: no depth scaling
(ratio sqrt(N)), n_layer instead of 2·n_layer (ratio sqrt(2)), a scaled init overwritten by a later
generic one (it names both lines), PyTorch's default init because no custom init reached the layer.

## Why is this bad?
The residual stream's variance grows by one writer variance per write; without the depth factor a
deep model starts with an exploding stream. Static analysis reads what the code says; this check
sees what it does, through helpers, loops, `apply`, HF `post_init` and monkey-patched inits.

## Example
```python
self.apply(self._init_weights)               # normal_(std=0.02) for every Linear
# no special init of c_proj: writers get 0.02, the gpt2 policy wants 0.02/sqrt(2*n_layer)
```

## Use instead
```python
for name, p in self.named_parameters():
    if name.endswith("c_proj.weight"):
        torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * config.n_layer))
```
Another deliberate scheme: `--policy per-layer|small-init|zero-init|fan-in|none` (the default
`auto` recognises the depth-scaled ones by itself).

## Fix safety
No fix: reported from a run, not from the text.
"""

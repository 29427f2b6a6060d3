"""flash-linear-attention (`fla.modules`, from the fla-core distribution): its fused norms."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Arg, FusedResidualNorm, LayerSpec, Library
from initlint.analysis.knowledge.torch_nn import NORM_PARAMS

# `forward(x, residual=None, prenorm=False, residual_in_fp32=False)`: normalises `x + residual`,
# returning `(normed, x + residual)` when `prenorm` is set. Re-exported by `fla.modules`.
_ADDS_RESIDUAL = FusedResidualNorm(residual=Arg(1, ("residual",), False), returns_sum=Arg(2, ("prenorm",), False))

# No import root: fla's kernels (`fla.ops`) alone do not mark model code.
FLA = Library(
    layers=tuple(
        (f"fla.modules{module}.{name}", LayerSpec("norm", name, params=NORM_PARAMS, adds_residual=_ADDS_RESIDUAL))
        for module in ("", ".layernorm")
        for name in ("LayerNorm", "RMSNorm", "GroupNorm")
    ),
)

"""einops' layers: `Rearrange` only moves a tensor's values between axes (heads split or merged,
patches flattened), so a branch read through it keeps what it holds."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library, LayerSpec

EINOPS = Library(
    import_roots=("einops",),
    layers=(("einops.layers.torch.Rearrange", LayerSpec("dropout", "Rearrange")),),
)

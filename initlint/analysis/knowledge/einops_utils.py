"""torch-einops-utils (lucidrains' helpers): `Sequential(*modules)` builds an `nn.Sequential` of
the modules that are not None; `Identity` returns its input."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library, LayerSpec

EINOPS_UTILS = Library(
    import_roots=("torch_einops_utils",),
    layers=(
        ("torch_einops_utils.nn.Sequential", LayerSpec("sequential", "Sequential", drops_none=True)),
        ("torch_einops_utils.nn.Identity", LayerSpec("dropout", "Identity")),
    ),
)

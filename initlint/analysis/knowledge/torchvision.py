"""torchvision: `StochasticDepth`, its residual-branch dropout."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import LayerSpec, Library

# No import root: `import torchvision` alone (datasets, transforms) does not mark model code.
TORCHVISION = Library(
    # Drops a whole residual branch per sample at train time, the identity at eval: as `DropPath`.
    # Keyed where it is defined, so that torchvision's own source is read as this entry says;
    # known by its class name wherever it is imported from (`torchvision.ops` re-exports it).
    layers=(
        (
            "torchvision.ops.stochastic_depth.StochasticDepth",
            LayerSpec("dropout", "StochasticDepth", match_class_name=True),
        ),
    ),
)

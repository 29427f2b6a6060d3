"""Model-parallel linears of Megatron-LM and fairscale: the weight's init is the `init_method=`
callable the caller passes. Known by qualified name only: a project's own class of the same
name is mapped to one of these with `extend-layer-classes` in `[tool.initlint]`."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import LayerSpec, Library

_MODULES = ("megatron.core.tensor_parallel", "megatron.core.tensor_parallel.layers", "fairscale.nn.model_parallel.layers")

PARALLEL_LAYERS = Library(
    import_roots=("megatron", "fairscale"),
    layers=tuple(
        (f"{module}.{name}", LayerSpec("linear", name, init_from_argument="init_method"))
        for module in _MODULES
        for name in ("ColumnParallelLinear", "RowParallelLinear")
    ),
)

"""Model-parallel linears of Megatron-LM and fairscale: the weight's init is the `init_method=`
callable the caller passes, usually made by Megatron's init-method factories. nanotron's pipeline
stages: `PipelineBlock` builds `module_builder(**module_kwargs)` as its child `pp_block`; its
tensor-parallel layers are `nn.Linear` / `nn.Embedding` subclasses holding one shard, drawn as
their base draws them until the model's init runs. Known by qualified name only: a project's own
class of the same name is mapped to one of these with `extend-layer-classes` in `[tool.initlint]`."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Arg, InitMethodFactory, LayerSpec, Library, ParamDefault
from initlint.analysis.knowledge.torch_nn import EMBEDDING_PARAMS, LINEAR_PARAMS

_MODULES = (
    "megatron.core.tensor_parallel",
    "megatron.core.tensor_parallel.layers",
    "fairscale.nn.model_parallel.layers",
)

#: The weight is allocated with torch.empty and handed to `init_method`; the bias is zeroed.
_PARAMS = (ParamDefault("weight", "empty", None, ndim=2), ParamDefault("bias", "zeros", 0.0, ndim=1))
_UTILS = ("megatron.core.utils", "megatron.model.utils", "megatron.legacy.model.utils")
_SIGMA = Arg(0, ("sigma",), 0.02)
#: `scaled_init_method_normal(sigma, num_layers, multiplier=2.0)`: std = sigma / sqrt(2 * num_layers),
#: GPT-2's residual scaling (two writers per layer).
_FACTORIES = {
    "init_method_normal": InitMethodFactory(_SIGMA),
    "scaled_init_method_normal": InitMethodFactory(_SIGMA, Arg(1, ("num_layers",), 0.0), Arg(2, ("multiplier",), 2.0)),
}

PARALLEL_LAYERS = Library(
    import_roots=("megatron", "fairscale"),
    layers=tuple(
        (f"{module}.{name}", LayerSpec("linear", name, params=_PARAMS, init_from_argument="init_method"))
        for module in _MODULES
        for name in ("ColumnParallelLinear", "RowParallelLinear")
    ),
    init_method_factories=tuple(
        (f"{module}.{name}", factory) for module in _UTILS for name, factory in _FACTORIES.items()
    ),
)

_NANOTRON_TP = "nanotron.parallel.tensor_parallel.nn"

NANOTRON = Library(
    import_roots=("nanotron",),
    layers=(
        *(
            (f"{_NANOTRON_TP}.{name}", LayerSpec("linear", name, ("Linear",), params=LINEAR_PARAMS))
            for name in ("TensorParallelColumnLinear", "TensorParallelRowLinear")
        ),
        (
            f"{_NANOTRON_TP}.TensorParallelEmbedding",
            LayerSpec("embedding", "TensorParallelEmbedding", ("Embedding",), params=EMBEDDING_PARAMS),
        ),
        (
            "nanotron.parallel.pipeline_parallel.block.PipelineBlock",
            LayerSpec("wrapper", "PipelineBlock", builds_child=("pp_block", "module_builder", "module_kwargs")),
        ),
    ),
)

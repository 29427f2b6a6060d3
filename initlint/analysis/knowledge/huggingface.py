"""Hugging Face `transformers`: `PreTrainedModel`'s init entry points and GPT-2's `Conv1D`."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import CallsArgument, LayerSpec, Library, ParamDefault
from initlint.analysis.knowledge.torch_init import KAIMING_NORMAL, TORCH_INIT

#: The config fields transformers' generic `_init_weights` draws linears and embeddings from:
#: the first one the config has (`initializer_range`, else `init_std`, else `initializer_factor`).
GENERIC_INIT_STD = ("initializer_range", "init_std", "initializer_factor")
_WEIGHT_DRAWN = (("weight", "normal"), ("bias", "zeros"))
#: What transformers' generic `PreTrainedModel._init_weights` gives each parameter, by layer kind
#: ("normal" draws from N(0, initializer_range); "*" is any other parameter of the layer).
GENERIC_INIT: dict[str, tuple[tuple[str, str], ...]] = {
    "linear": _WEIGHT_DRAWN,
    "embedding": _WEIGHT_DRAWN,
    "conv": _WEIGHT_DRAWN,
    "norm": (("weight", "ones"), ("*", "zeros")),
}

_PRETRAINED = ("transformers.PreTrainedModel", "transformers.modeling_utils.PreTrainedModel")

HUGGINGFACE = Library(
    import_roots=("transformers",),
    # transformers 5's configs: `@strict class OPTConfig(PreTrainedConfig): do_layer_norm_before: bool = True`
    dataclass_decorators=("huggingface_hub.dataclasses.strict",),
    # `from transformers import initialization as init`: torch.nn.init's functions, skipping a
    # tensor already loaded from a checkpoint (`_is_hf_initialized`); on a fresh model they are
    # torch's. Known here, their source (that per-tensor guard) is never read.
    init_functions=tuple(
        (f"transformers.initialization.{name.rpartition('.')[2]}", spec) for name, spec in TORCH_INIT.init_functions
    )
    # Its own fan-in draws behind the same guard (Flax's LeCun init): std 1/sqrt(fan_in).
    + (
        ("transformers.initialization.lecun_normal_", KAIMING_NORMAL),
        ("transformers.initialization.default_flax_embed_init_", KAIMING_NORMAL),
    ),
    layers=(
        # GPT-2's transposed linear draws normal(0, 0.02) in its own __init__; modeling files
        # import it through relative paths, so it is known by its class name.
        (
            "transformers.pytorch_utils.Conv1D",
            LayerSpec(
                "linear",
                "Conv1D",
                params=(ParamDefault("weight", "normal", 0.02, ndim=2), ParamDefault("bias", "zeros", 0.0, ndim=1)),
                match_class_name=True,
            ),
        ),
    ),
    module_bases=_PRETRAINED,
    pretrained_bases=_PRETRAINED,
    stored_init_arguments=tuple((base, "config") for base in _PRETRAINED),
    init_argument_types=tuple((base, "config_class") for base in _PRETRAINED),
    # `sub_configs_defaults = {"text_config": XTextConfig}`: `PreTrainedConfig.__post_init__`
    # builds that class (with its defaults) for a sub-config field left None.
    sub_config_tables=(("transformers.configuration_utils.PreTrainedConfig", "sub_configs_defaults"),),
    # Each applies `_init_weights` to every module, children first.
    init_entry_points=("post_init", "init_weights", "initialize_weights"),
    # `apply_chunking_to_forward(self.feed_forward_chunk, chunk_size, seq_dim, attention_output)`
    # runs the feed-forward (and the residual add inside it) on chunks of its inputs.
    calls_argument=(
        ("transformers.pytorch_utils.apply_chunking_to_forward", CallsArgument(function=0, inputs_from=3)),
    ),
)

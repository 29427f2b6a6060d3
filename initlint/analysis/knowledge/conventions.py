"""Naming conventions of model code that no library defines but every project follows: what a
depth, a layer index, a width or a residual writer is usually called."""

from __future__ import annotations

from initlint.analysis.knowledge.specs import Library

#: Names that mean "number of blocks" wherever they appear (`[tool.initlint] depth-names` adds more).
DEPTH_NAMES = frozenset(
    {
        "n_layer",
        "n_layers",
        "num_layers",
        "num_hidden_layers",
        "depth",
        "num_blocks",
        "n_blocks",
        "nlayers",
        "num_layer",
    }
)
#: The atom the interpreter gives the loop variable over a repeated container: "this block's index".
LAYER_INDEX = "@layer"
LAYER_INDEX_NAMES = frozenset(
    {
        LAYER_INDEX,
        "layer_id",
        "layer_idx",
        "layer_number",
        "layer_index",
        "layer_num",
        "block_idx",
        "block_id",
        "layer_no",
    }
)
WIDTH_NAMES = frozenset(
    {
        "n_embd",
        "hidden_size",
        "d_model",
        "dim",
        "embed_dim",
        "width",
        "n_embed",
        "hidden_dim",
        "model_dim",
        "emb_dim",
        "d_embed",
        "fan_in",
        "fan_out",
        "head_dim",
    }
)
#: Names of residual writers, only used where the forward data flow cannot be followed.
WRITER_NAMES = (
    "c_proj",
    "o_proj",
    "out_proj",
    "wo",
    "down_proj",
    "w2",
    "fc2",
    "dense_4h_to_h",
    "proj",
    "dense",
    "out",
    "to_out",
    "linear_out",
    "output_proj",
)
#: Attribute names that, for a layer of unknown type, still say "this is a norm / dropout".
NORM_HINTS = ("norm", "ln_", "ln1", "ln2", "ln_f", "layernorm", "rmsnorm")
PASS_THROUGH_HINTS = ("dropout", "drop_path", "drop", "identity")
#: Functional calls in `forward` that normalise, and that squash a branch into a gate.
NORM_FUNCTIONS = frozenset({"layer_norm", "rms_norm", "group_norm", "normalize"})
SQUASHING = frozenset({"sigmoid", "softmax", "tanh"})
#: Statistics of a tensor's spread (`x.std(-1)`, `x.var(-1)`, `x.norm(dim=-1)`), and the roots
#: taken of one (`torch.sqrt(var + eps)`; `rsqrt` its reciprocal): the stream divided by a
#: spread (or multiplied by a reciprocal) is standardised, as a norm leaves it.
SPREAD_STATISTICS = frozenset({"std", "var", "norm"})
ROOTS = frozenset({"sqrt", "rsqrt"})
#: Functional nonlinearities: applied to the stream itself after an add (`relu(out * 0.17 + x)`),
#: they make a post-activation residual network, not a residual stream.
ACTIVATION_FUNCTIONS = frozenset({"relu", "relu_", "gelu", "silu", "leaky_relu", "elu", "relu6", "hardswish"})
#: Functions that hand back one of their arguments unchanged, by its position: `typing.cast(T, x)` is `x`;
#: `torch.compile(fn)` runs as `fn` (a block's method swapped for its compiled version under a flag).
RETURNS_ARGUMENT = {"typing.cast": 1, "torch.compile": 0}
#: torch functions that join the tensors of the sequence they are given into one: the result
#: holds every part (`torch.cat((memory_v, v), dim=-2)` is still the values' share).
CONCATENATING = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
#: Calls in `forward` that hand back a callable running as one of their arguments, by its position:
#: `layer = functools.partial(layer, **kwargs)` then `layer(x)` applies `layer` to `x` (the
#: interpreter models `partial` itself, for `__init__`).
RUNS_AS_ARGUMENT = {"functools.partial": 0}
#: The functional form of a linear layer (`F.linear(x, weight, bias)`).
LINEAR_FUNCTIONS = frozenset({"torch.nn.functional.linear"})
#: Functional calls in `forward` that multiply their input by a weight given as an argument
#: (`torch.einsum("th,thd->td", h, self.w2[e])`): that weight writes the result.
MATRIX_PRODUCTS = frozenset({"einsum", "matmul", "bmm", "mm", "baddbmm", "addmm", "tensordot", "inner"})
#: A tensor's attributes and methods that describe it rather than hold its values
#: (`n = x.shape[-2]`, `x.size(1)`): what is computed from them (`self.rotary_emb(n)`) is not
#: the stream's content.
TENSOR_METADATA = frozenset({"shape", "size", "dim", "numel", "device", "dtype", "ndim", "is_cuda", "requires_grad"})
#: Tensor methods that take only the dtype and device of a tensor handed to them
#: (`scales.to(x)`, `mask.type_as(x)`): the result holds the receiver's values.
CASTING_METHODS = frozenset({"to", "type_as"})
#: Calls that make a new tensor, whatever tensor they are given (`torch.zeros_like(x)`).
FRESH_TENSORS = frozenset(
    {
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
    }
)
#: Tensor methods (and their in-place forms, with `_`) whose result is the receiver's values, at
#: most each multiplied by the same arguments (`x.div(keep)`, `x.view(b, -1)`, `x.to(dtype)`).
SCALE_KEEPING_METHODS = frozenset(
    {
        "mul",
        "multiply",
        "div",
        "divide",
        "true_divide",
        "view",
        "reshape",
        "contiguous",
        "to",
        "type",
        "float",
        "half",
        "bfloat16",
        "double",
        "clone",
        "transpose",
        "permute",
        "flatten",
        "unflatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "type_as",
        "view_as",
        "expand_as",
    }
)
#: A tensor's attributes that are its values laid out another way (`x @ self.weight.T`).
TRANSPOSED_VIEWS = frozenset({"T", "mT", "H", "mH"})
#: Of those, the ones whose tensor argument gives only its shape, dtype or device (`x.type_as(y)`).
LIKE_METHODS = frozenset({"type_as", "view_as", "expand_as", "to"})
#: What makes a tuple class with named fields: `namedtuple("Out", ["hidden", "attn"])`, or a class
#: based on `NamedTuple` (a `forward` builds one to hand several values back by name).
NAMEDTUPLE_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})
#: Tensor methods (and `torch` functions) that cut a tensor into parts (`x1, x2 = x.chunk(2, dim=-1)`).
SPLITTING_METHODS = frozenset({"chunk", "split", "tensor_split"})
#: Tensor methods and `torch` functions whose result holds only the values of the tensors they are
#: given, moved, cut out or padded with constants (`torch.cat((x, F.pad(x_shift, (0, 0, 1, -1))), -1)`,
#: a token shift): no value is computed from another.
VALUE_MOVING_CALLS = SPLITTING_METHODS | frozenset(
    {"unbind", "roll", "flip", "narrow", "pad", "cat", "concat", "concatenate", "stack"}
    | {"view", "reshape", "contiguous", "clone", "transpose", "permute", "flatten", "unflatten"}
    | {"squeeze", "unsqueeze", "t"}
)
#: In-place tensor methods that accumulate their last argument into the receiver
#: (`out.index_add_(0, idx, expert_out)`): the receiver then holds that content too.
ACCUMULATE_IN_PLACE = frozenset({"index_add_", "scatter_add_", "index_copy_", "index_put_", "copy_"})
#: The add written as a call: tensor methods (`x.add_(y)` adds in place, as `x += y` does) and
#: `torch` functions (`torch.add(x, y, out=x)`); `alpha=` multiplies the second operand.
ADDING_METHODS = frozenset({"add", "add_"})
ADDING_FUNCTIONS = frozenset({"torch.add"})
#: Callables that receive modules or tensors without initialising them.
HARMLESS_CALLS = frozenset(
    {
        "print",
        "len",
        "id",
        "type",
        "repr",
        "str",
        "isinstance",
        "hasattr",
        "getattr",
        "list",
        "tuple",
        "sorted",
        "iter",
        "next",
        "warn",
        "info",
        "debug",
        "warning",
        "error",
        "sum",
        "numel",
        "no_grad",
        "enumerate",
        "zip",
        "dict",
        "set",
    }
)
#: Init methods written for `model.apply(...)`: called once per module, children first.
PER_MODULE_INIT_FUNCTIONS = frozenset({"_init_weights"})
#: Context managers of autograd: `with torch.no_grad():` leaves init code as it is.
GRAD_MODES = frozenset({"no_grad", "inference_mode", "enable_grad"})
#: Config fields that announce a parametrisation with its own depth rules (MiniCPM's muP, mup's).
DELIBERATE_CONFIG_NAMES = {
    "scale_depth": "muP depth scaling (scale_depth)",
    "dim_model_base": "muP (dim_model_base)",
    "mup_width_multiplier": "muP",
    "use_mup": "muP",
}

DELIBERATE_SCHEMES = Library(deliberate_imports=(("mup", "muP"), ("unit_scaling", "unit scaling (u-muP)")))
#: Where a file never calls one of these, the analysis assumes the model's user does, with the
#: method's own defaults (a library's model: nanotron, torchtitan-style `init_weights()`).
ENTRY_POINTS = Library(explicit_init_entry_points=("init_model_randomly", "reset_parameters", "_init_weights"))

#: Containers that read the keys of a dict as attributes (`hp = EasyDict(defaults)`, `hp.n_layer`):
#: hyperparameters kept this way are read by their entries, as a dict's subscript reads them.
#: Each takes its entries from keyword arguments and from a first positional dict.
ATTRIBUTE_DICTS = frozenset(
    {
        "types.SimpleNamespace",
        "argparse.Namespace",
        "easydict.EasyDict",
        "munch.Munch",
        "box.Box",
        "addict.Dict",
        "attrdict.AttrDict",
        "ml_collections.ConfigDict",
        "omegaconf.OmegaConf.create",
    }
)
#: Hyperparameter containers built as `HParams(hparams, default_hparams)`: the defaults, with the
#: user's entries over them (Texar's; a `hparams` left at None gives the defaults).
DEFAULTS_SECOND_ATTRIBUTE_DICTS = frozenset(
    {
        "texar.torch.HParams",
        "texar.torch.hyperparams.HParams",
        "texar.tf.HParams",
        "texar.tf.hyperparams.HParams",
        "asyml_utilities.hyperparams.HParams",
    }
)

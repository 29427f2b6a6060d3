"""The kinds of entry the knowledge registry holds. Plain data: no LibCST, no torch, so the
text pre-filter and the runtime can read the registry without paying for either."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Arg:
    """An argument of a call: where it sits positionally, the keywords that name it, its default."""

    index: int
    keywords: tuple[str, ...]
    #: A number, or a flag (a pre-norm switch that is off by default).
    default: float | bool


@dataclass(frozen=True)
class InitSpec:
    """What an init function or in-place tensor method leaves a tensor with.

    Arguments count from the first positional argument of the call as written: for
    `nn.init.normal_(w, 0, std)` the tensor is argument 0; for `w.normal_(0, std)` the mean is.
    The std the analysis computes follows from the fields that are set:
    `std` (normal-like), `low`/`high` (uniform, or the cut points of a truncated normal),
    `fan` with an optional `gain` (gain / sqrt(fan)); zeros/ones/constant give 0.
    """

    kind: str
    std: Arg | None = None
    low: Arg | None = None
    high: Arg | None = None
    gain: Arg | None = None
    #: "fan_in" or "fan_avg": the std is gain / sqrt(that fan).
    fan: str | None = None
    #: A "scale" that divides by its argument (`div_`) instead of multiplying.
    divides: bool = False
    #: torch emits no dispatch for it on the meta device: the runtime tracer wraps it.
    invisible_on_meta: bool = False
    #: The value a constant fill writes (`constant_(w, val)`); ones and zeros write 1 and 0.
    value: Arg | None = None


@dataclass(frozen=True)
class ParamDefault:
    """A parameter a layer creates and the init its constructor gives it."""

    name: str
    kind: str
    #: The std it ends with (None: not known); with `over_sqrt_fan_in`, divided by sqrt(fan_in).
    std: float | None
    over_sqrt_fan_in: bool = False
    #: How many dimensions the tensor has (`p.dim()`), where the layer fixes it.
    ndim: int | None = None
    #: The layer attribute each dimension's size is (a Linear weight: out_features, in_features):
    #: `p.shape[1]` reads as `in_features` does, a width, never the depth.
    dims: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResidualBlock:
    """A library layer that is a whole residual block: its own `forward` adds branches into the
    stream it is given (PyTorch's transformer encoder layer)."""

    #: The sub-layer that writes each residual add, in the order `forward` makes the adds: as many
    #: adds as writers.
    writers: tuple[str, ...]
    #: The constructor argument that, when true, normalises the stream before each branch
    #: (pre-norm) instead of after each add (post-norm).
    prenorm: Arg


@dataclass(frozen=True)
class FusedResidualNorm:
    """A norm whose `forward` also takes the residual stream (a fused add-and-norm kernel): it
    normalises `x + residual`, and with its `returns_sum` switch on hands back `(normed, sum)`, so
    that the caller carries the sum on as the stream."""

    #: The `forward` argument the stream comes in by (counting `x` as argument 0).
    residual: Arg
    returns_sum: Arg


@dataclass(frozen=True)
class StreamConnection:
    """A module standing between the residual stream and one branch (hyper-connections): called
    on the stream, it hands back the branch input and an adder, a function that adds the branch
    output it is called on into the stream; built around its branch (`branch=`), its own
    `forward` runs the branch on the stream and makes the add. The streams it may keep side by
    side change neither: one add per call."""

    #: The keyword the branch is given by; the module keeps it as its child of that name.
    branch: str
    #: The keyword of a switch that, when false, makes the adder hand back the branch output
    #: alone (no add); absent, the adder adds.
    adds: str


@dataclass(frozen=True)
class BlockStack:
    """A library container that repeats a block it is given (`nn.TransformerEncoder(layer, n)`
    deep-copies `layer` n times): the copies are the children of a ModuleList."""

    #: The ModuleList holding the copies (`layers`).
    container: str
    block: Arg
    depth: Arg
    #: The optional norm after the last block, and the child it becomes.
    norm: Arg | None = None
    norm_child: str = "norm"


@dataclass(frozen=True)
class BuiltStack:
    """A stack a library model builds itself from its own arguments (`nn.Transformer`'s encoder):
    `depth` copies of `block_class`, whose pre-norm switch is the model's `prenorm` argument."""

    child: str
    stack_class: str
    block_class: str
    depth: Arg
    prenorm: Arg
    #: The norm after its last block, built as `norm_class` without arguments.
    norm_class: str | None = None
    #: A module given in its place (`custom_encoder=`): the stack is not built then. Its default
    #: is falsy (None in PyTorch; False here, as an `Arg` default is a number or a flag).
    replaced_by: Arg | None = None


@dataclass(frozen=True)
class LayerSpec:
    """A library layer class."""

    #: linear, conv, embedding, norm, container, sequential, dropout, activation, attention,
    #: block (a `residual` block), stack (a `stack` or a model of `builds`)
    kind: str
    #: Last component of the class name; `isinstance` against another known name is decided by it.
    class_name: str
    #: Class names this one is a subclass of (for isinstance).
    also: tuple[str, ...] = ()
    params: tuple[ParamDefault, ...] = ()
    #: The weight's init comes from a constructor argument (Megatron's `init_method=`).
    init_from_argument: str | None = None
    #: Known wherever it is imported from (re-exported under many paths), not only by qualified name.
    match_class_name: bool = False
    #: Sub-layers the constructor creates (`nn.MultiheadAttention.out_proj`): name -> layer class.
    sublayers: tuple[tuple[str, str], ...] = ()
    #: A wrapper that builds its one child from two constructor keywords: (child name, keyword of
    #: the class or function to call, keyword of the mapping of its arguments).
    builds_child: tuple[str, str, str] | None = None
    #: A residual block: what its own `forward` adds into the stream.
    residual: ResidualBlock | None = None
    #: A container repeating the block it is given.
    stack: BlockStack | None = None
    #: A norm that adds the stream it is handed to its input (the residual add is in the call).
    adds_residual: FusedResidualNorm | None = None
    #: A module that adds one branch into the stream (hyper-connections).
    connection: StreamConnection | None = None
    #: Stacks the model builds itself, then the init its constructor ends with on every matrix
    #: (`nn.Transformer._reset_parameters`: xavier_uniform_ where `p.dim() > 1`).
    builds: tuple[BuiltStack, ...] = ()
    matrix_init: str | None = None
    #: A container that leaves out the None among its arguments before numbering its children
    #: (`Sequential(proj_in, maybe_norm, proj_out)` with `maybe_norm = None` holds `0`, `1`).
    drops_none: bool = False
    #: The keyword a container also takes its entries by (`nn.ModuleList(modules=layers)`).
    entries_keyword: str | None = None


@dataclass(frozen=True)
class InitMethodFactory:
    """A function that returns an init method (Megatron's `init_method_normal(sigma)`): the
    method draws normal(0, sigma), divided by sqrt(multiplier * depth) where `depth` is set."""

    sigma: Arg
    depth: Arg | None = None
    multiplier: Arg | None = None


@dataclass(frozen=True)
class LayerFactory:
    """A function that hands back a known layer class with arguments bound, among other values:
    hyper-connections' `get_init_and_expand_reduce_stream_functions(n, dim=d)` returns
    `(partial(HyperConnections, n, dim=d), expand, reduce)`. Its first argument and its keywords
    are bound on the class (the layer's entry reads only the keywords it names)."""

    layer: str
    #: How many values it returns, and where the class is among them.
    returns: int
    position: int = 0


@dataclass(frozen=True)
class TensorFactory:
    """`torch.zeros(...)`, `torch.randn(...)`: a fresh tensor and the std its values have."""

    kind: str
    std: float | None
    #: The value a constant tensor holds (`torch.full(size, v)`, `torch.tensor(v)`).
    value: Arg | None = None


@dataclass(frozen=True)
class CallsArgument:
    """A function that runs one of its arguments on the positional arguments after it:
    `checkpoint(fn, *inputs)` computes `fn(*inputs)`, so the adds and writers of `fn` are read
    there as if it were called directly."""

    function: int = 0
    inputs_from: int = 1
    #: The function builds the module class it is handed and leaves its parameters
    #: uninitialised (`torch.nn.utils.skip_init(nn.Linear, d, d)`): `__init__` reads it there.
    skips_init: bool = False


@dataclass(frozen=True)
class Packing:
    """A function that joins the tensors of a list into one and hands back, beside it, the shapes
    it takes to cut them out again (einops' `packed, shapes = pack([cls, x], "b * d")`), or one
    that cuts a tensor so joined back into its pieces (`cls, x = unpack(packed, shapes, "b * d")`).
    Joined, the tensor holds every piece's values: what a layer computes from it, it computes
    from each; cut again, each piece holds what the joined tensor held."""

    #: "packs" or "unpacks".
    kind: str
    #: The positional argument cut or joined: the list of tensors packed, the tensor unpacked.
    tensors: int = 0
    #: Of "unpacks": the positional argument listing the shapes, one per piece.
    shapes: int = 1


@dataclass(frozen=True)
class Library:
    """What one library contributes to the registry; every field is keyed by qualified name."""

    #: Top-level package names whose import marks a file as model code (the text pre-filter).
    import_roots: tuple[str, ...] = ()
    layers: tuple[tuple[str, LayerSpec], ...] = ()
    init_functions: tuple[tuple[str, InitSpec], ...] = ()
    #: In-place tensor methods (`torch.Tensor.normal_`).
    tensor_methods: tuple[tuple[str, InitSpec], ...] = ()
    tensor_factories: tuple[tuple[str, TensorFactory], ...] = ()
    #: Functions returning an init method for a layer's `init_method=`.
    init_method_factories: tuple[tuple[str, InitMethodFactory], ...] = ()
    #: Functions returning a layer class with arguments bound (among other values).
    layer_factories: tuple[tuple[str, LayerFactory], ...] = ()
    #: Base classes that make a subclass an `nn.Module`.
    module_bases: tuple[str, ...] = ()
    #: Base classes whose init entry points apply the class's `_init_weights` to every module.
    pretrained_bases: tuple[str, ...] = ()
    #: Methods of a `pretrained_bases` model that run that init (`post_init`).
    init_entry_points: tuple[str, ...] = ()
    #: Methods a model offers its user to run its init after construction (nanotron's
    #: `init_model_randomly`), besides the `init_entry_points`; `PER_MODULE` ones go to `apply`.
    explicit_init_entry_points: tuple[str, ...] = ()
    #: Imports that announce a deliberate parametrisation with its own init rules: module -> scheme.
    deliberate_imports: tuple[tuple[str, str], ...] = ()
    #: Class decorators that make a dataclass, as `dataclasses.dataclass` does: the class's
    #: annotated fields with defaults are the default config.
    dataclass_decorators: tuple[str, ...] = ()
    #: Base classes that make each subclass a dataclass, as those decorators do (pydantic's
    #: `BaseModel`), matched by qualified name only.
    dataclass_bases: tuple[str, ...] = ()
    #: Bases whose `__init__` keeps its first argument on the instance: base -> attribute
    #: (`PreTrainedModel.__init__(config)` sets `self.config`).
    stored_init_arguments: tuple[tuple[str, str], ...] = ()
    #: Config bases whose `__post_init__` replaces a field left None by an instance of the class
    #: a class attribute maps it to: base -> that attribute (`sub_configs_defaults =
    #: {"text_config": LlamaConfig}` on a `PreTrainedConfig`).
    sub_config_tables: tuple[tuple[str, str], ...] = ()
    #: Model bases whose loaders build the model from an instance of the class a class attribute
    #: names, handed over as the first `__init__` argument: base -> that attribute
    #: (`config_class = LlamaConfig`: `from_pretrained` and `from_config` call `cls(config)`).
    init_argument_types: tuple[tuple[str, str], ...] = ()
    #: Functions that call one of their arguments with the others (`torch.utils.checkpoint`).
    calls_argument: tuple[tuple[str, CallsArgument], ...] = ()
    #: Functions that join tensors into one or cut one back into its pieces (einops' `pack`).
    packing: tuple[tuple[str, Packing], ...] = ()
    #: Packages whose tensor functions compute as torch's of the same name do, imported by name
    #: too (`from torch import einsum`, an einsum library's `einsum`): a matrix product is applied
    #: by the weight it is handed, other functions mix the tensors they are handed.
    tensor_functions: tuple[str, ...] = ()

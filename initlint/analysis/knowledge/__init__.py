"""What the analyzer knows about library APIs, in one registry keyed by qualified name.

Each library has its own module (`torch_nn`, `torch_init`, `huggingface`, `parallel_layers`,
`timm`, `einops`, `einops_utils`, `fancy_einsum`, `torchvision`, `fla`, `hyper_connections`,
the `config_classes` of config libraries, plus the naming `conventions`), each a `Library` of
plain-data specs (`specs.py`).
Everything else is derived from here: what a call to `torch.nn.init.normal_` does to a tensor
and which argument is its std, which layers exist and how PyTorch initialises them, which base
classes make a model and which of their methods run an init, the text pre-filter's import
roots, and the `nn.init` functions the runtime tracer wraps. Teaching the analyzer an API is
one entry in one of these modules (docs/recipes/teach-an-api.md).

Kept free of LibCST and torch: the pre-filter and the runtime import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from initlint.analysis.knowledge.config_classes import CONFIG_CLASSES
from initlint.analysis.knowledge.conventions import DELIBERATE_SCHEMES, ENTRY_POINTS
from initlint.analysis.knowledge.einops import EINOPS
from initlint.analysis.knowledge.einops_utils import EINOPS_UTILS
from initlint.analysis.knowledge.fancy_einsum import FANCY_EINSUM
from initlint.analysis.knowledge.fla import FLA
from initlint.analysis.knowledge.huggingface import HUGGINGFACE
from initlint.analysis.knowledge.hyper_connections import HYPER_CONNECTIONS
from initlint.analysis.knowledge.parallel_layers import NANOTRON, PARALLEL_LAYERS
from initlint.analysis.knowledge.specs import (
    CallsArgument,
    InitMethodFactory,
    InitSpec,
    LayerFactory,
    LayerSpec,
    Library,
    Packing,
    TensorFactory,
)
from initlint.analysis.knowledge.timm import TIMM
from initlint.analysis.knowledge.torch_init import TORCH_INIT
from initlint.analysis.knowledge.torch_nn import TORCH_NN
from initlint.analysis.knowledge.torchvision import TORCHVISION

LIBRARIES = (
    TORCH_NN,
    TORCH_INIT,
    HUGGINGFACE,
    PARALLEL_LAYERS,
    NANOTRON,
    TIMM,
    EINOPS,
    EINOPS_UTILS,
    FANCY_EINSUM,
    TORCHVISION,
    FLA,
    HYPER_CONNECTIONS,
    CONFIG_CLASSES,
    DELIBERATE_SCHEMES,
    ENTRY_POINTS,
)
_TORCH_NN_PREFIX = "torch.nn."


def _last(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


def _first_by_base(pairs: list[tuple[str, str]], bases: list[str]) -> str | None:
    """What the first base of a chain maps to, matched by qualified name or by class name
    (libraries reach their own bases through relative imports)."""
    table = dict(pairs)
    by_class = {_last(base): value for base, value in table.items()}
    for base in bases:
        found = table.get(base) or by_class.get(_last(base))
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Registry:
    """The merged tables of some libraries, with the lookups the analysis makes."""

    libraries: tuple[Library, ...]
    #: User classes standing for a known layer (`[tool.initlint] extend-layer-classes`).
    layer_aliases: tuple[tuple[str, str], ...] = ()
    _layers: dict[str, LayerSpec] = field(default_factory=dict, init=False, repr=False, compare=False)
    _layers_by_class: dict[str, LayerSpec] = field(default_factory=dict, init=False, repr=False, compare=False)
    _init_functions: dict[str, InitSpec] = field(default_factory=dict, init=False, repr=False, compare=False)
    _init_by_name: dict[str, InitSpec] = field(default_factory=dict, init=False, repr=False, compare=False)
    _tensor_methods: dict[str, InitSpec] = field(default_factory=dict, init=False, repr=False, compare=False)
    _tensor_factories: dict[str, TensorFactory] = field(default_factory=dict, init=False, repr=False, compare=False)
    _init_method_factories: dict[str, InitMethodFactory] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _layer_factories: dict[str, LayerFactory] = field(default_factory=dict, init=False, repr=False, compare=False)
    _calls_argument: dict[str, CallsArgument] = field(default_factory=dict, init=False, repr=False, compare=False)
    _packing: dict[str, Packing] = field(default_factory=dict, init=False, repr=False, compare=False)
    _tensor_functions: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for library in self.libraries:
            for name, spec in library.layers:
                self._layers[name] = spec
                if spec.match_class_name or name.startswith(_TORCH_NN_PREFIX):
                    self._layers_by_class.setdefault(spec.class_name, spec)
            for name, init in library.init_functions:
                self._init_functions[name] = init
                self._init_by_name.setdefault(_last(name), init)
            self._tensor_methods.update((_last(name), spec) for name, spec in library.tensor_methods)
            self._tensor_factories.update(library.tensor_factories)
            self._init_method_factories.update(library.init_method_factories)
            self._layer_factories.update(library.layer_factories)
            self._calls_argument.update(library.calls_argument)
            self._packing.update(library.packing)
            self._tensor_functions.update(library.tensor_functions)
        for user_class, known in self.layer_aliases:
            self._layers[user_class] = self._layers[known]

    def extended(self, layer_aliases: Iterable[tuple[str, str]]) -> "Registry":
        aliases = tuple(layer_aliases)
        return Registry(self.libraries, self.layer_aliases + aliases) if aliases else self

    # ------------------------------------------------------------------ layers
    def layer(self, qualified: str) -> LayerSpec | None:
        """The spec of a constructor as the index resolved it: `torch.nn.Linear`, `nn.Linear`,
        a bare `Linear` (star import), or a relative import of a library module."""
        exact = self._layers.get(qualified)
        if exact is not None:
            return exact
        last = _last(qualified)
        if qualified.startswith(("torch.nn.", "nn.")) or qualified == last:
            torch_layer = self._layers.get(_TORCH_NN_PREFIX + last)
            if torch_layer is not None:
                return torch_layer
        by_class = self._layers_by_class.get(last)
        return by_class if by_class is not None and (by_class.match_class_name or qualified == last) else None

    def knows(self, qualified: str) -> bool:
        """Whether `qualified` is a library name the registry describes: code that defines it
        (a checked library's own source) is then read as the registry says, not interpreted."""
        return (
            qualified in self._layers
            or qualified in self._init_functions
            or qualified in self._tensor_factories
            or qualified in self._init_method_factories
            or qualified in self._layer_factories
            or qualified in self._packing
            or qualified in self.module_bases()
            or qualified in self.pretrained_bases()
        )

    def is_known_class_name(self, class_name: str) -> bool:
        return class_name in self._layers_by_class or any(_last(name) == class_name for name in self._layers)

    # -------------------------------------------------------------------- init
    def init_function(self, qualified: str) -> InitSpec | None:
        """By qualified name, else by the last name component: init functions are re-exported
        (`timm.layers.trunc_normal_`) and imported relatively inside libraries."""
        return self._init_functions.get(qualified) or self._init_by_name.get(_last(qualified))

    def tensor_method(self, name: str) -> InitSpec | None:
        return self._tensor_methods.get(name)

    def tensor_factory(self, qualified: str) -> TensorFactory | None:
        return self._tensor_factories.get(qualified)

    def init_method_factory(self, qualified: str) -> InitMethodFactory | None:
        return self._init_method_factories.get(qualified)

    def layer_factory(self, qualified: str) -> LayerFactory | None:
        return self._layer_factories.get(qualified)

    def calls_argument(self, qualified: str) -> CallsArgument | None:
        """By qualified name, or by the tail of a relative import inside the library itself
        (`from ...pytorch_utils import apply_chunking_to_forward` in a transformers model)."""
        exact = self._calls_argument.get(qualified)
        if exact is not None or not qualified.startswith("."):
            return exact
        tail = "." + qualified.lstrip(".")
        return next((spec for name, spec in self._calls_argument.items() if name.endswith(tail)), None)

    def packing(self, qualified: str) -> Packing | None:
        """A function that joins tensors into one or cuts one into its pieces, by qualified name."""
        return self._packing.get(qualified)

    def computes_as_torch(self, qualified: str) -> bool:
        """Whether a function of this package computes as torch's of the same name (an einsum),
        by the top-level package of its qualified name."""
        return qualified.partition(".")[0] in self._tensor_functions

    def invisible_on_meta(self) -> dict[str, InitSpec]:
        """`torch.nn.init` functions that emit nothing on the meta device, by their name there."""
        prefix = "torch.nn.init."
        return {
            name[len(prefix) :]: spec
            for name, spec in self._init_functions.items()
            if name.startswith(prefix) and spec.invisible_on_meta
        }

    # -------------------------------------------------------- model classes
    def dataclass_decorator_names(self) -> frozenset[str]:
        """Last names of the decorators that make a dataclass (`dataclass`, HF's `strict`)."""
        return frozenset({"dataclass"}) | frozenset(
            _last(name) for library in self.libraries for name in library.dataclass_decorators
        )

    def makes_dataclass(self, bases: list[str]) -> bool:
        """Whether a class with this base chain is a dataclass by its base (pydantic's `BaseModel`),
        named by qualified name only: many projects call their own `nn.Module` base `BaseModel`."""
        return any(base in library.dataclass_bases for library in self.libraries for base in bases)

    def module_bases(self) -> frozenset[str]:
        return frozenset(base for library in self.libraries for base in library.module_bases)

    def pretrained_bases(self) -> frozenset[str]:
        return frozenset(base for library in self.libraries for base in library.pretrained_bases)

    def pretrained_class_names(self) -> frozenset[str]:
        """`PreTrainedModel`: bases also recognised by class name (relative imports in libraries)."""
        return frozenset(_last(base) for base in self.pretrained_bases())

    def stored_init_argument(self, bases: list[str]) -> str | None:
        """The attribute a base of the chain keeps its `__init__`'s first argument in (`config`),
        by qualified name or, as `pretrained_class_names`, by class name."""
        return _first_by_base([pair for library in self.libraries for pair in library.stored_init_arguments], bases)

    def sub_config_table(self, bases: list[str]) -> str | None:
        """The class attribute mapping a config's sub-config fields to their default classes, for
        a config with one of `sub_config_tables`' bases (by qualified name or class name)."""
        return _first_by_base([pair for library in self.libraries for pair in library.sub_config_tables], bases)

    def init_argument_type(self, bases: list[str]) -> str | None:
        """The class attribute naming the type of the first `__init__` argument of a model with
        one of `init_argument_types`' bases (by qualified name or class name)."""
        return _first_by_base([pair for library in self.libraries for pair in library.init_argument_types], bases)

    def init_entry_points(self) -> frozenset[str]:
        return frozenset(name for library in self.libraries for name in library.init_entry_points)

    def explicit_init_entry_points(self) -> tuple[str, ...]:
        """Every method a model's user may call to run its init, in the order they are tried."""
        extra = tuple(name for library in self.libraries for name in library.explicit_init_entry_points)
        return tuple(sorted(self.init_entry_points())) + extra

    def deliberate_scheme_of_import(self, qualified: str) -> str | None:
        root = qualified.split(".")[0]
        return next(
            (scheme for library in self.libraries for module, scheme in library.deliberate_imports if module == root),
            None,
        )

    def import_roots(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(root for library in self.libraries for root in library.import_roots))


REGISTRY = Registry(LIBRARIES)

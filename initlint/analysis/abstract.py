"""Abstract values the interpreter computes with (numbers are `Monomial`s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

import libcst as cst

from initlint.analysis.index import ClassInfo
from initlint.analysis.model import InitOp, ModuleNode, Param
from initlint.analysis.values import Monomial


class Unknown:
    """Anything we cannot (or need not) model. Its truth value is undecided."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Num:
    value: Monomial


@dataclass(frozen=True)
class Const:
    """A Python constant: str, bool, None, or a number we keep exact."""

    value: Any


@dataclass(frozen=True)
class Opaque:
    """An object we do not model (a config, an argument). Numeric use makes an atom of its name."""

    name: str
    #: A root's parameter keeps its name as a symbol; a string default (`attn_implementation="sdpa"`)
    #: is remembered here to pick an entry of a class table by it.
    default: str | None = None
    #: A root's config parameter annotated with a dataclass of the file: its field defaults.
    fields: ClassInfo | None = field(default=None, compare=False, hash=False)
    #: The default comparisons decide by, as the default model does, while arithmetic and
    #: attributes keep the symbol: a numeric config field's (`block_group_size: int = 1`), a root
    #: parameter's None (`ls_init_value=None`) or empty list (`use_ckpting=[]`).
    compared: Const | Seq | None = field(default=None, compare=False, hash=False)
    #: Where a string default a comparison decides by is written (`init_device: str = "cpu"`):
    #: the label and node the finding's evidence names as the assumed default.
    assumed: tuple[str, cst.CSTNode] | None = field(default=None, compare=False, hash=False)
    #: The builtin type of a root parameter's number default (`heads=8`: "int"): `isinstance`
    #: decides by it as the default model does, while comparisons keep the symbol undecided.
    default_type: str | None = field(default=None, compare=False, hash=False)
    #: Whether a root parameter's number default is nonzero (`ls_init_value=1e-6`): `if
    #: ls_init_value:` decides by it as the model built with its defaults does.
    nonzero: bool | None = field(default=None, compare=False, hash=False)
    #: A root parameter's number default (`init_values=1.0`): the value the model built with its
    #: defaults has, while arithmetic and comparisons keep the symbol.
    number: float | None = field(default=None, compare=False, hash=False)
    #: A root parameter's default list of settings written out one tuple per layer or stage
    #: (`window_sizes=[(4, 4), (8, 8)]`): its entries as written, while its length keeps the symbol.
    entries: tuple[Any, ...] | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Choice:
    """One of several numbers, picked by a condition the analysis cannot decide
    (`n_experts if is_moe_layer else 1`): a test all of them answer alike is decided."""

    options: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class EnumMember:
    """A member of an enum class of the project (`InitFnType.normal`), held in a `Const`. It is
    equal to itself; a member of an enum mixed with `str` or `int` is also equal to its value, as
    Python compares them (`InitFnType.normal == "normal"`)."""

    owner: int
    name: str
    value: Any
    mixed: bool

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EnumMember):
            if self.mixed and other.mixed:
                return bool(self.value == other.value)
            return (self.owner, self.name) == (other.owner, other.name)
        return self.mixed and bool(self.value == other)

    def __hash__(self) -> int:
        return hash(self.value)

    def same(self, other: object) -> bool:
        """`is`: the one member object, whatever its value."""
        return isinstance(other, EnumMember) and (self.owner, self.name) == (other.owner, other.name)


@dataclass
class Seq:
    """A tuple/list; `repeat` is set for `[Block(...) for _ in range(N)]`."""

    items: list[Any]
    repeat: Monomial | None = None
    #: "tuple" or "list" where the code wrote one (`isinstance(x, tuple)` decides by it).
    written_as: str | None = field(default=None, compare=False)


@dataclass
class Mapping:
    """A dict; `repeat` is set for one filled by a loop under keys made from its index
    (`for i in range(n): blocks[f"block_{i}"] = Block()`), one representative entry."""

    items: dict[Any, Any]
    repeat: Monomial | None = None
    #: A module-level table that registering functions fill: other modules may add entries, so
    #: a key it lacks may still be there.
    open: bool = False
    #: Its keys read as attributes too (`hp = SimpleNamespace(**defaults)`; `hp.n_layer`).
    attributes: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class ModRef:
    node: ModuleNode
    #: The modules the other arm of an undecided `if` bound to the same name (`attn = A(...)` in
    #: one arm, `attn = B(...)` in the other): at run time the value is one of them.
    others: tuple[ModuleNode, ...] = field(default=(), compare=False, hash=False)

    def either(self, other: "ModRef") -> "ModRef":
        """The value after the arms of an `if`: this module or the other arm's."""
        return ModRef(self.node, (*self.others, other.node, *other.others))


@dataclass(frozen=True)
class ParamRef:
    param: Param
    #: The same parameter of the modules another arm of an undecided `if` put under the owner's
    #: name (`layer.ff.proj.weight` where `ff` is one of two classes): an init reaches each.
    others: tuple[Param, ...] = field(default=(), compare=False, hash=False)
    #: Read through a sigmoid or tanh in `forward` (`torch.tanh(self.gate)`): its values are no
    #: longer the ones it was initialised with.
    squashed: bool = field(default=False, compare=False, hash=False)

    def all_params(self) -> tuple[Param, ...]:
        return (self.param, *self.others)


@dataclass(frozen=True)
class NewTensor:
    """`torch.ones(d)`, `torch.randn(a, b) * 0.02`: how a fresh nn.Parameter starts."""

    op: InitOp


@dataclass(frozen=True)
class InitMethod:
    """An init function made by a registered factory (Megatron's init methods): applied to a
    tensor, it leaves `std`; `node` is the factory call."""

    kind: str
    std: Monomial | None
    label: str
    node: cst.CSTNode = field(compare=False, hash=False)


@dataclass(frozen=True)
class ClassRef:
    cls: ClassInfo


@dataclass(frozen=True)
class ClassPartial:
    """`functools.partial(Block, dim)`: a class of the code with leading arguments bound; calling
    it builds the class with them (`wrap(attn)` is `Block(dim, attn)`)."""

    cls: ClassInfo
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class ExtPartial:
    """`functools.partial(nn.init.normal_, std=0.02)`: a function from elsewhere with arguments
    bound; calling it calls that function with them (`init(module.weight)`)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Registry:
    """A registry object filled by the project's module-level `register` calls, by qualified name:
    `registry.get(name)` is what was registered under that name."""

    name: str


@dataclass(frozen=True)
class Namespace:
    """The module's own globals, as `globals()` hands them back: `globals()[block_type]` is the
    class or function the module defines (or imports) under that name."""


@dataclass(frozen=True)
class ExtRef:
    """Something imported: a function, class or module, by qualified name."""

    name: str


@dataclass(frozen=True)
class FuncRef:
    func: cst.FunctionDef
    owner: ClassInfo | None = None
    bound: Any = None
    partial_args: tuple[Any, ...] = ()
    partial_kwargs: tuple[Any, ...] = ()
    #: The enclosing function's variables, for a function defined inside another (a closure).
    closure: Any = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, eq=False)
class MethodChoice:
    """Methods of one module stored under one name by the arms of an undecided `if` (`if
    parallel: self._forward = self._forward_parallel` / `else: self._forward =
    self._forward_plain`): called, one of them runs."""

    options: tuple[FuncRef, ...]


def bound_method(value: Any) -> TypeGuard[FuncRef]:
    """A method bound to a module (`self.ff_residual`), stored to be called later."""
    return isinstance(value, FuncRef) and isinstance(value.bound, ModRef) and not value.partial_args


@dataclass(frozen=True)
class Lambda:
    node: cst.Lambda
    #: The variables where it was written (`m = self.mlp; self.mlpf = lambda x: m.c_proj(...)`).
    closure: Any = field(default=None, compare=False, hash=False)
    #: The index of the module it was written in: its free names are that module's globals,
    #: wherever it is called (`Repeat(lambda: Block(dim), n)` runs it in Repeat's module).
    scope: Any = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class SuperRef:
    instance: Any
    cls: ClassInfo


@dataclass
class Env:
    names: dict[Any, Any] = field(default_factory=dict)
    #: The arm of an undecided `if` (its id, 0 or 1) each name was last bound in.
    arms: dict[Any, tuple[int, int]] = field(default_factory=dict)

    def child(self) -> "Env":
        return Env(dict(self.names))


def as_number(value: Any) -> Monomial | None:
    if isinstance(value, Num):
        return value.value
    if isinstance(value, Const) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
        return Monomial.of(value.value)
    if isinstance(value, Opaque):
        return Monomial.atom(value.name)
    return None


def default_number(value: Any) -> float | None:
    """The number a value is in the model built with its defaults: a number written out, or a
    root parameter or config field by its number default (`layerscale_value: float = 1.0`)."""
    if isinstance(value, Opaque) and value.number is not None:
        return value.number
    if isinstance(value, Opaque) and value.compared is not None:
        value = value.compared
    if isinstance(value, Num):
        return value.value.const if value.value.is_constant else None
    if isinstance(value, Const) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
        return float(value.value)
    return None


def truth(value: Any) -> bool | None:
    """Python truthiness where it is known."""
    if isinstance(value, Const):
        return bool(value.value)
    if isinstance(value, Num):
        return value.value.const != 0 if value.value.is_constant else None
    if isinstance(
        value, (ModRef, ParamRef, ClassRef, ClassPartial, FuncRef, ExtRef, ExtPartial, NewTensor, InitMethod)
    ):
        return True
    if isinstance(value, Seq):
        return bool(value.items) if value.repeat is None else None
    if isinstance(value, Mapping) and value.items:
        return True  # an empty one may have entries a `**spread` we could not read would add
    if isinstance(value, Choice):
        answers = {truth(option) for option in value.options}
        return answers.pop() if len(answers) == 1 else None
    if isinstance(value, Opaque) and value.compared == Const(None):
        return False  # `if init_values:` on a root parameter left at None, as `is not None` decides
    if isinstance(value, Opaque) and isinstance(value.compared, Const) and isinstance(value.compared.value, str):
        return bool(value.compared.value)  # `if not self.steps:` on a config's `"dr"`, as `== ""` decides
    if isinstance(value, Opaque) and value.nonzero is not None:
        return value.nonzero
    return None


def merge_uncertain(bindings: dict[Any, Any], name: str, value: Any, ctx: Any) -> Any:
    """A binding made on a path that may not run: keep it only if it agrees with what was there."""
    if ctx.certain or name not in bindings or bindings[name] == value:
        return value
    return UNKNOWN

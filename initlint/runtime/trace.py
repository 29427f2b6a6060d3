"""Init trace: what every parameter is *asked* to hold once construction and init are done.

The model is built on the meta device (no parameter memory) under a `TorchDispatchMode`
that records, per storage, every op that writes it: factory ops (`empty` means
uninitialised), `normal_`, `uniform_`, `zero_`, `fill_`, in-place scalar `mul_`/`div_`/`add_`,
`copy_` from a tensor whose distribution is known, and partial writes through views (a
zeroed padding row). Keying by storage identity makes `p`, `p.data`, views and tied
parameters one record. `nn.init` functions that do nothing visible on meta
(`trunc_normal_`, `orthogonal_`, ...) are wrapped for the duration of the trace, including
references user modules took with `from torch.nn.init import ...` (`invisible_init.py`).

The fold of a storage's ops is a `Requested` distribution with an exact std (truncation
included), the source line of the op that decided it, and whether parts were never written.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import Any, Callable, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from initlint.runtime.distribution import (  # noqa: F401 -- re-exported for callers of the trace
    UNINITIALISED,
    UNKNOWN,
    Requested,
    constant,
    normal,
    truncated_normal_std,
    uniform,
)
from initlint.runtime.invisible_init import INVISIBLE_ON_META  # noqa: F401 -- re-exported for callers of the trace
from initlint.runtime.invisible_init import patched_init_functions

aten = torch.ops.aten

_TORCH_DIR = os.path.dirname(torch.__file__)
_INITLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIR = os.path.dirname(os.__file__)
_LIBRARY_DIRS = (_TORCH_DIR, _INITLINT_DIR, _STDLIB_DIR)


#: Frames of functions with these names are wrappers of `nn.init` (transformers keeps its own):
#: the source of an op is their caller.
_INIT_FUNCTION_NAMES = frozenset(name for name in dir(torch.nn.init) if name.endswith("_") and not name.startswith("_"))


def storage_key(tensor: torch.Tensor) -> int:
    return tensor.untyped_storage()._cdata


@dataclass
class StorageRecord:
    numel: int
    state: Requested
    #: Every full write in order (the last is `state`): shows an init that was overwritten.
    history: list[Requested] = field(default_factory=list)
    #: Elements written (or overwritten) by partial writes, summed: views rarely overlap.
    partial_elements: int = 0
    keepalive: Any = None


def _number(value) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


class InitTracer(TorchDispatchMode):
    """Records init ops per storage while construction and init run.

    `focus_files` are the files whose lines are preferred as the source of an op (the model's
    own file); otherwise the innermost frame outside torch, initlint and the stdlib is used.
    """

    _FACTORY = {
        aten.empty.memory_format: UNINITIALISED,
        aten.empty_strided.default: UNINITIALISED,
        aten.new_empty.default: UNINITIALISED,
        aten.new_empty_strided.default: UNINITIALISED,
        aten.empty_like.default: UNINITIALISED,
    }

    def __init__(self, focus_files: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.records: dict[int, StorageRecord] = {}
        self.focus_files = tuple(os.path.abspath(f) for f in focus_files)
        self._suppress = 0
        self.active = True
        self._origin = ""
        #: Storage -> the storage it was cloned from (`copy.deepcopy`), until written again.
        self.copies: dict[int, int] = {}

    # -- where the op came from -------------------------------------------------------------
    def source(self) -> tuple | None:
        """(file, line, caller line, ...): the innermost frame in a focus file, then up to
        two of its callers in the same file (an init helper and the line that called it)."""
        frame: FrameType | None = sys._getframe(2)
        fallback = None
        found: list = []
        while frame is not None and len(found) < 4:
            filename = frame.f_code.co_filename
            if found:
                if filename == found[0]:
                    found.append(frame.f_lineno)
            elif filename in self.focus_files or os.path.abspath(filename) in self.focus_files:
                found = [filename, frame.f_lineno]
            elif (
                fallback is None
                and not filename.startswith(_LIBRARY_DIRS)
                and not filename.startswith("<")
                and frame.f_code.co_name not in _INIT_FUNCTION_NAMES
            ):
                fallback = (filename, frame.f_lineno)
            frame = frame.f_back
        self._origin = f"{fallback[0]}:{fallback[1]}" if found and fallback else ""
        return tuple(found) if found else fallback

    # -- recording -------------------------------------------------------------------------
    def _record_for(self, tensor: torch.Tensor) -> StorageRecord:
        key = storage_key(tensor)
        record = self.records.get(key)
        if record is None:
            numel = tensor.untyped_storage().nbytes() // max(tensor.element_size(), 1)
            record = self.records[key] = StorageRecord(numel, UNKNOWN, keepalive=tensor.untyped_storage())
        return record

    def state_of(self, tensor: torch.Tensor) -> Requested:
        record = self.records.get(storage_key(tensor))
        return record.state if record is not None else UNKNOWN

    def write(self, tensor: torch.Tensor, new_state: Requested, label: str) -> None:
        """Record an op that gives `tensor` (maybe a view) the distribution `new_state`."""
        if self._origin and new_state.source:
            new_state = replace(new_state, origin=self._origin)
        self._origin = ""
        new_state = replace(new_state, by_default=_in_torch_default(), in_constructor=_in_constructor())
        self.copies.pop(storage_key(tensor), None)
        record = self._record_for(tensor)
        if tensor.numel() >= record.numel:
            record.state = new_state
            record.history.append(new_state)
            record.partial_elements = 0
            return
        # A partial write: the rest keeps what it had (or stays unwritten).
        record.partial_elements = min(record.numel, record.partial_elements + tensor.numel())
        if record.state.kind == "uninitialised":
            unwritten = 1 - record.partial_elements / record.numel
            record.state = replace(new_state, unwritten_fraction=unwritten, op=label, source=new_state.source)
        else:
            record.state = replace(record.state, partial_fraction=record.partial_elements / record.numel)

    def record_call(self, tensor: torch.Tensor, new_state: Requested) -> None:
        """Entry point for wrapped `nn.init` functions."""
        self.write(tensor, new_state, new_state.op)

    @contextmanager
    def suppressed(self) -> Iterator[None]:
        self._suppress += 1
        try:
            yield
        finally:
            self._suppress -= 1

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self._suppress:
            return out
        try:
            self._observe(func, args, kwargs, out)
        except Exception:  # noqa: BLE001 -- observing must never change what the model does
            pass
        return out

    def _observe(self, func, args, kwargs, out) -> None:
        name = func.overloadpacket.__name__
        if func in self._FACTORY and isinstance(out, torch.Tensor):
            self.write(out, replace(UNINITIALISED, source=self.source()), name)
            return
        if name in _CREATORS and isinstance(out, torch.Tensor):
            self.write(out, _CREATORS[name](args, kwargs, name, self.source()), name)
            return
        if name in _INDEXED_WRITES and args and isinstance(args[0], torch.Tensor):
            # Which elements an indexed write touches needs values: the distribution stays
            # (a padding row), and a never-written tensor becomes "unknown", not "uninitialised".
            record = self._record_for(args[0])
            if record.state.kind == "uninitialised":
                record.state = replace(UNKNOWN, op=name, source=self.source())
            return
        if name.endswith("_") and args and isinstance(args[0], torch.Tensor):
            target = args[0]
            state = self._in_place(name, target, args[1:], kwargs)
            if state is not None:
                self.write(target, state, name)
            return
        if name in _VALUE_PRESERVING and isinstance(out, torch.Tensor) and args and isinstance(args[0], torch.Tensor):
            self._derive(out, args, name)

    def _in_place(self, name: str, target: torch.Tensor, rest: tuple, kwargs: dict) -> Requested | None:
        source = self.source()
        current = self.state_of(target)
        first = rest[0] if rest else None
        if name == "normal_":
            return normal(_number(kwargs.get("mean", first)) or 0.0, _arg(rest, kwargs, 1, "std", 1.0), name, source)
        if name == "uniform_":
            return uniform(_arg(rest, kwargs, 0, "from", 0.0), _arg(rest, kwargs, 1, "to", 1.0), name, source)
        if name == "zero_":
            return constant(0.0, name, source)
        if name == "fill_":
            value = _number(first)
            return constant(value, name, source) if value is not None else replace(UNKNOWN, op=name, source=source)
        if name in ("mul_", "div_"):
            factor = _number(first)
            if factor is None:
                return replace(UNKNOWN, op=name, source=source)
            return current.scaled(factor if name == "mul_" else 1 / factor, name, source)
        if name in ("add_", "sub_"):
            offset = _number(first)
            if offset is None:
                return replace(UNKNOWN, op=name, source=source)
            alpha = _number(kwargs.get("alpha", 1)) or 1.0
            return current.shifted(offset * alpha * (1 if name == "add_" else -1), name, source)
        if name == "copy_" and isinstance(first, torch.Tensor):
            copied = self.state_of(first)
            return replace(
                copied, op=f"copy_ ({copied.op})", source=source, unwritten_fraction=copied.unwritten_fraction
            )
        if name in _IGNORED_IN_PLACE:
            return None
        return replace(UNKNOWN, op=name, source=source)

    def _derive(self, out: torch.Tensor, args: tuple, name: str) -> None:
        """Out-of-place arithmetic on a tensor of known distribution (`torch.randn(...) * 0.02`)."""
        if storage_key(out) == storage_key(args[0]):
            return  # a view: same record already
        state = self.state_of(args[0])
        if state.kind == "unknown":
            return
        other = _number(args[1]) if len(args) > 1 else None
        if name in ("mul", "div") and other is not None:
            state = state.scaled(other if name == "mul" else 1 / other, name, state.source)
        elif name in ("add", "sub") and other is not None:
            state = state.shifted(other if name == "add" else -other, name, state.source)
        elif name not in ("clone", "_to_copy", "contiguous", "to"):
            return
        record = self._record_for(out)
        record.state = state
        if name == "clone":  # copy.deepcopy of a parameter
            self.copies[storage_key(out)] = self.copies.get(storage_key(args[0]), storage_key(args[0]))


def _in_constructor() -> bool:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"), torch.nn.Module):
            return True
        frame = frame.f_back
    return False


def _in_torch_default() -> bool:
    """Is the op running inside a torch layer's own `reset_parameters` (its default init)?"""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        if frame.f_code.co_name in ("reset_parameters", "_reset_parameters") and frame.f_code.co_filename.startswith(
            _TORCH_DIR
        ):
            return True
        frame = frame.f_back
    return False


def _arg(rest: tuple, kwargs: dict, index: int, key: str, default: float) -> float:
    value = kwargs.get(key, rest[index] if len(rest) > index else default)
    number = _number(value)
    return default if number is None else number


def _creator_full(args, kwargs, name, source) -> Requested:
    value = _number(args[1] if len(args) > 1 else kwargs.get("fill_value"))
    return constant(value, name, source) if value is not None else replace(UNKNOWN, op=name, source=source)


_CREATORS: dict[str, Callable[..., Requested]] = {
    "zeros": lambda a, k, n, s: constant(0.0, n, s),
    "zeros_like": lambda a, k, n, s: constant(0.0, n, s),
    "new_zeros": lambda a, k, n, s: constant(0.0, n, s),
    "ones": lambda a, k, n, s: constant(1.0, n, s),
    "ones_like": lambda a, k, n, s: constant(1.0, n, s),
    "new_ones": lambda a, k, n, s: constant(1.0, n, s),
    "full": _creator_full,
    "new_full": _creator_full,
    "randn": lambda a, k, n, s: normal(0.0, 1.0, n, s),
    "randn_like": lambda a, k, n, s: normal(0.0, 1.0, n, s),
    "rand": lambda a, k, n, s: uniform(0.0, 1.0, n, s),
    "rand_like": lambda a, k, n, s: uniform(0.0, 1.0, n, s),
    "arange": lambda a, k, n, s: Requested("computed", op=n, source=s),
    "linspace": lambda a, k, n, s: Requested("computed", op=n, source=s),
    "eye": lambda a, k, n, s: Requested("computed", op=n, source=s),
    "scalar_tensor": lambda a, k, n, s: Requested("computed", op=n, source=s),
    "lift_fresh": lambda a, k, n, s: Requested("computed", op=n, source=s),
}
_VALUE_PRESERVING = {"mul", "div", "add", "sub", "clone", "_to_copy", "contiguous", "to"}
#: In-place writes whose coverage depends on index or mask values.
_INDEXED_WRITES = {
    "index_put_",
    "_index_put_impl_",
    "masked_fill_",
    "masked_scatter_",
    "scatter_",
    "scatter_add_",
    "scatter_reduce_",
    "index_fill_",
    "index_copy_",
    "index_add_",
    "put_",
}
#: In-place ops that do not change values (autograd bookkeeping, resizing of fresh tensors).
_IGNORED_IN_PLACE = {"requires_grad_", "detach_", "resize_", "set_", "share_memory_", "_coalesced_"}


@contextmanager
def tracing(focus_files: tuple[str, ...] = (), tracer: InitTracer | None = None) -> Iterator[InitTracer]:
    """Trace init ops of whatever runs inside (construction on meta, an explicit init call);
    with `tracer`, go on recording into an earlier trace (the init run a second time)."""
    tracer = tracer or InitTracer(focus_files)
    tracer.active = True
    try:
        with patched_init_functions(tracer), tracer:
            yield tracer
    finally:
        tracer.active = False


def requested_per_parameter(model: torch.nn.Module, tracer: InitTracer) -> dict[str, tuple[Requested, list[Requested]]]:
    """Every parameter name (ties: each name) with its requested distribution and write history."""
    result: dict[str, tuple[Requested, list[Requested]]] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        record = tracer.records.get(storage_key(param))
        result[name] = (record.state, list(record.history)) if record is not None else (UNKNOWN, [])
    return result


def copied_groups(model: torch.nn.Module, tracer: InitTracer) -> list[list[str]]:
    """Parameters that are unwritten copies of one tensor (`copy.deepcopy` of an initialised
    prototype), with random values: every copy starts identical. Ties are one storage, not copies."""
    groups: dict[int, list[str]] = {}
    for name, param in model.named_parameters():
        key = storage_key(param)
        origin = tracer.copies.get(key)
        state = tracer.records[key].state if key in tracer.records else UNKNOWN
        if origin is not None and state.kind in ("normal", "uniform", "trunc_normal", "orthogonal"):
            groups.setdefault(origin, []).append(name)
    return [names for names in groups.values() if len(names) > 1]


def tied_groups(model: torch.nn.Module) -> list[list[str]]:
    """Names of parameters that share one storage (weight ties)."""
    groups: dict[int, list[str]] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        groups.setdefault(storage_key(param), []).append(name)
    return [names for names in groups.values() if len(names) > 1]

"""`nn.init` functions that emit no dispatch on meta (`trunc_normal_`, `orthogonal_`, ...): what
each requests, and swapping them for recording wrappers while a trace runs, everywhere user code
may hold them (the static knowledge registry names them)."""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterator

import torch

from initlint.analysis.knowledge import REGISTRY
from initlint.runtime.distribution import Requested

if TYPE_CHECKING:
    from initlint.runtime.trace import InitTracer


def _trunc_normal(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, *rest, **kwargs) -> Requested:
    return replace(Requested.trunc_normal(float(std), float(mean), float(a), float(b)), op="trunc_normal_")


def _orthogonal(tensor, gain=1.0, *rest, **kwargs) -> Requested:
    rows = tensor.shape[0] if tensor.dim() else 1
    cols = tensor.numel() // max(rows, 1)
    std = gain / math.sqrt(max(rows, cols, 1))
    return Requested("orthogonal", 0.0, std, std, op="orthogonal_")


def _eye_like(name: str) -> Callable[..., Requested]:
    return lambda tensor, *rest, **kwargs: Requested("computed", op=name)


def _undescribed(name: str) -> Callable[..., Requested]:
    return lambda tensor, *rest, **kwargs: Requested("unknown", op=name)


def _describer(name: str, kind: str) -> Callable[..., Requested]:
    if kind == "trunc_normal":
        return _trunc_normal
    if kind == "orthogonal":
        return _orthogonal
    return _eye_like(name) if kind == "constant" else _undescribed(name)


#: nn.init functions that emit no dispatch on meta (the static knowledge registry marks them),
#: with the distribution they request.
INVISIBLE_ON_META: dict[str, Callable[..., Requested]] = {
    name: _describer(name, spec.kind) for name, spec in REGISTRY.invisible_on_meta().items()
}


def _wrapper(original: Callable, describe: Callable[..., Requested], tracer: InitTracer) -> Callable:
    def traced(tensor, *args, **kwargs):
        if not tracer.active:  # a reference taken while tracing (a lazy import) outlives the trace
            return original(tensor, *args, **kwargs)
        source = tracer.source()
        with tracer.suppressed():
            result = original(tensor, *args, **kwargs)
        tracer.record_call(tensor, replace(describe(tensor, *args, **kwargs), source=source))
        return result

    traced.__wrapped__ = original  # type: ignore[attr-defined]
    traced.__name__ = getattr(original, "__name__", "init")
    return traced


@contextmanager
def patched_init_functions(tracer: InitTracer) -> Iterator[None]:
    """Swap the invisible `nn.init` functions everywhere user code may hold them.

    Modules that did `from torch.nn.init import trunc_normal_` (and module-level dicts of init
    functions, as some libraries keep) hold the original object: those references are swapped
    too and all restored on exit.
    """
    init_module = torch.nn.init
    originals = {name: getattr(init_module, name) for name in INVISIBLE_ON_META if hasattr(init_module, name)}
    replacement = {id(fn): _wrapper(fn, INVISIBLE_ON_META[name], tracer) for name, fn in originals.items()}
    undo: list[tuple[dict, str]] = []

    def swap_in(namespace: dict) -> None:
        for key, value in list(namespace.items()):
            new = replacement.get(id(value))
            if new is not None:
                undo.append((namespace, key))
                namespace[key] = new
            # Plain dicts only: mapping subclasses (transformers' lazy auto maps) import on access.
            elif type(value) is dict and 0 < len(value) < 64 and namespace is not init_module.__dict__:
                for inner_key, inner in list(value.items()):
                    if id(inner) in replacement:
                        undo.append((value, inner_key))
                        value[inner_key] = replacement[id(inner)]

    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if isinstance(namespace, dict) and not getattr(module, "__name__", "").startswith("torch."):
            swap_in(namespace)
    swap_in(init_module.__dict__)
    saved = [(ns, key, ns[key].__wrapped__) for ns, key in undo]
    try:
        yield
    finally:
        for namespace, key, original in saved:
            namespace[key] = original

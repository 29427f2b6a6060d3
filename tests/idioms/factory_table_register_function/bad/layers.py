"""Linear layers are picked by name from a table that a registering function fills when this
module is imported; other modules may register more kinds."""

from typing import Callable

import torch.nn as nn

_KINDS: dict[str, Callable] = {}


def register_kind(kind: str, factory: Callable) -> None:
    if kind in _KINDS:
        raise KeyError(f"{kind} is already registered")
    _KINDS[kind] = factory


def kind_of(options):
    if not options:
        return "dense"
    return options.get("kind", "dense")


def make_linear(d_in, d_out, bias=True, options=None):
    kind = kind_of(options)
    if kind in _KINDS:
        return _KINDS[kind](d_in, d_out, bias)
    raise KeyError(f"unknown linear kind {kind}")


register_kind("dense", nn.Linear)

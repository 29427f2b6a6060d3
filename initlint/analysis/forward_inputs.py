"""Which inputs of a `forward` the residual stream comes in by (`residual.ForwardReader`)."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

#: Annotations of a `forward` parameter that cannot hold a tensor.
SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def from_stream(params: Sequence[cst.Param]) -> list[str]:
    """The names of `forward`'s inputs from the one the stream comes in: a block handed its
    layer index first (`forward(self, layer_idx: int, x)`) takes the stream after it. Without
    annotations the stream is the first input, as `nn.Module.__call__(x)` passes it."""
    names = [param.name.value for param in params]
    for position, param in enumerate(params):
        if _may_hold_tensor(param):
            return names[position:]
    return names


def keyword_streams(params: Sequence[cst.Param]) -> list[str]:
    """The names of a `forward`'s keyword-only inputs, where it takes no positional one, that a
    caller must pass (no default) and that may hold a tensor: the streams it is handed by name
    (`block(text_tokens=text, image_tokens=image)`). A keyword with a default (a mask, a
    condition) is computed by the caller, not a stream."""
    return [param.name.value for param in params if param.default is None and _may_hold_tensor(param)]


def _may_hold_tensor(param: cst.Param) -> bool:
    annotation = param.annotation.annotation if param.annotation is not None else None
    return not (isinstance(annotation, cst.Name) and annotation.value in SCALAR_ANNOTATIONS)

"""What a tensor method or `torch` function hands back in a `forward` (`forward_calls.py`):
it keeps the provenance of the value it is called on, mixes computed tensors (the content is the
side not squashed into mixing weights), scatters under complementary masks, or, handed raw
weights we cannot trace, hides which layer came last.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Env, ParamRef, Seq
from initlint.analysis.flow import (
    ACTIVATED,
    MAYBE_NORMED,
    NORMED,
    STREAM,
    Branch,
    Part,
    conditioned,
    join,
    merge,
    spread_of,
)
from initlint.analysis.forward_bindings import filled_list
from initlint.analysis.forward_statements import _Flow
from initlint.analysis.knowledge.conventions import (
    ACCUMULATE_IN_PLACE,
    ACTIVATION_FUNCTIONS,
    CASTING_METHODS,
    MATRIX_PRODUCTS,
    NORM_FUNCTIONS,
    SQUASHING,
)
from initlint.analysis.knowledge.torch_init import VALUE_KEEPING_METHODS


def fed_raw_weights(name: str, args: list[Any], carried: Any) -> Any:
    """What a call we cannot read returns. `torch.tanh(self.gate)`: a squashed learned scalar is
    still a learned gate (Flamingo). A kernel handed raw weights (`fused_scan(h, out_weight)`)
    applies layers we cannot see after the ones traced so far: the layer applied last is not
    known, so its output is not ours to trace. Anything else hands on what it is given."""
    weights = [a for a in args if isinstance(a, ParamRef)]
    if not weights:
        return carried
    return replace(weights[0], squashed=True) if name in SQUASHING and len(args) == 1 else UNKNOWN


def tensor_call(receiver: Any, name: str, args: list[Any], carried: Any) -> Any:
    """`receiver.name(*args)` on what is not a module: a tensor method or a `torch` function."""
    spread = spread_of(receiver, name, args)
    if spread is not None:
        return spread  # `x.std(-1)`, `torch.rsqrt(var + eps)`: a norm written out divides by it
    if isinstance(receiver, ParamRef) and (name in VALUE_KEEPING_METHODS or name in SQUASHING):
        # `self.gamma.unsqueeze(-1).unsqueeze(-1) * branch`: the same learned gain, broadcast;
        # `self.gate.tanh() * branch`: a squashed learned gate, as `torch.tanh(self.gate)` is.
        return replace(receiver, squashed=True) if name in SQUASHING else receiver
    if isinstance(receiver, Branch) and name in SQUASHING:
        # `self.gate(h).sigmoid()`: a squashed branch gates what it multiplies, as `torch.sigmoid(...)` does.
        return replace(receiver, squashed=True)
    if name in NORM_FUNCTIONS:
        return NORMED if carried is STREAM else carried
    if name in ACTIVATION_FUNCTIONS and (carried is STREAM or receiver is STREAM):
        return ACTIVATED  # `F.relu(x)` / `x.relu()` on the stream: a post-activation network
    if name in ("matmul", "bmm") and len(args) == 2 and isinstance(args[1], Branch):
        return args[1]
    if name in CASTING_METHODS:
        return receiver  # `scales.to(x)`: x's dtype and device, the scales' values
    if name == "_replace" and of_streams(carried):
        # `tokens._replace(x=self.norm(tokens.x))`: a named tuple carrying the stream, with the
        # field that holds it replaced, holds what the new value holds (a norm of the stream).
        return carried
    if receiver is STREAM or receiver is NORMED or conditioned(receiver) or isinstance(receiver, (Branch, Part)):
        # A tensor method (`.view`, `.square()`, `.softmax()`): the value keeps its provenance.
        return receiver
    return carried


def packed(tensors: Any) -> Seq:
    """`packed, shapes = pack([cls, x], "b * d")`: the joined tensor holds every piece. The
    stream joined with other tokens is still the stream (a branch computed from it and added
    back adds into the stream); otherwise it holds what its pieces hold, as `torch.cat` does.
    The shapes, one per piece, tell `unpack` how many pieces it hands back."""
    parts = tensors.items if isinstance(tensors, Seq) and tensors.repeat is None else None
    if parts is None:
        return Seq([tensors if of_streams(tensors) or isinstance(tensors, Part) else UNKNOWN, UNKNOWN])
    whole = STREAM if STREAM in parts else merge(parts)
    return Seq([whole, Seq([UNKNOWN] * len(parts), written_as="list")], written_as="tuple")


def unpacked(whole: Any, shapes: Any) -> Any:
    """`cls, x = unpack(packed, shapes, "b * d")`: one piece per shape `pack` handed back, each
    holding what the joined tensor holds; with shapes not known, the tensor as a whole."""
    if isinstance(shapes, Seq) and shapes.repeat is None and shapes.items:
        return Seq([whole] * len(shapes.items), written_as="list")
    return whole


def masked_scatter(
    written: cst.BaseExpression, mask: cst.BaseExpression, receiver: Any, source: Any, env: Env, flow: _Flow
) -> Any:
    """`x.masked_scatter(mask, values)`: `values` at the masked positions, `x` at the others.
    Written back into `x` and followed by a write under the complementary mask (`~mask`), no
    position holds the first `x` any more: each kind of token normalised by its own norm is
    normalised as a whole."""
    name = written.value if isinstance(written, cst.Name) else None
    earlier = flow.masked.get(name) if name is not None else None
    kept = receiver
    if earlier is not None and env.names.get(name) is earlier[2] and _complementary(earlier[0], mask):
        kept = earlier[1]
    result = join(kept, source)
    if name is not None:
        flow.masked[name] = (mask, source, result)
    return result


def _complementary(first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """One mask is the other inverted (`mask` and `~mask`)."""
    for plain, inverted in ((first, second), (second, first)):
        if (
            isinstance(inverted, cst.UnaryOperation)
            and isinstance(inverted.operator, cst.BitInvert)
            and inverted.expression.deep_equals(plain)
        ):
            return True
    return False


def carried_by(node: cst.Call, args: list[Any]) -> Any:
    """What of the stream the call's arguments hold; `self.net(*args)` hands on what the spread
    arguments hold too."""
    # (`pack(outs, "b * d")`, `torch.cat(outs)`: a list filled by `append` hands on its items.)
    spread = [
        item
        for arg, a in zip(node.args, args)
        if isinstance(a, Seq) and (arg.star == "*" or filled_list(a))
        for item in a.items
    ]
    return merge(
        [a for a in args + spread if a is STREAM or a is NORMED or conditioned(a) or isinstance(a, (Branch, Part))]
    )


def mixed(name: str, args: list[Any], carried: Any) -> Any:
    """A product of computed tensors (`einsum("tei,te->ti", expert_outs, routing_probs)`): where
    one side went through a softmax or sigmoid, it holds the mixing weights, as `probs @ v` does,
    and the content is the other side's."""
    if name not in MATRIX_PRODUCTS:
        return carried
    branches = [arg for arg in args if isinstance(arg, Branch)]
    content = [branch for branch in branches if not branch.squashed]
    return merge(content) if content and len(content) < len(branches) else carried


def of_streams(value: Any) -> bool:
    """A value the reading follows: a stream, normalised or not, a branch, or one computed elsewhere."""
    return (
        value is STREAM or value is NORMED or value is MAYBE_NORMED or conditioned(value) or isinstance(value, Branch)
    )


def stream_beside(args: list[Any]) -> bool:
    """The stream handed beside the call's input (`self.output(hidden, x)`), or first with a
    branch computed before the call (`self.resid(x, h)`)."""
    return STREAM in args[1:] or args[:1] == [STREAM] and any(isinstance(arg, Branch) for arg in args[1:])


def reset_if_stream(carried: Any, out: Any) -> Any:
    """The whole stream put through layers that end in a norm comes out renormalised: handed on
    as the stream, it starts afresh there."""
    if carried is STREAM and isinstance(out, Branch) and out.renormalised:
        return replace(out, resets_stream=True)
    return out


def appended(name: str, receiver: cst.BaseExpression, args: list[Any], env: Env) -> bool:
    """`outs.append(y)` on a list the `forward` fills item by item (`outs = []`): the list now
    holds one item more, at its place (one output per stream, handed back as a tuple)."""
    if name != "append" or len(args) != 1 or not isinstance(receiver, cst.Name):
        return False
    held = env.names.get(receiver.value)
    if not (isinstance(held, Seq) and filled_list(held)):
        return False
    env.names[receiver.value] = Seq([*held.items, args[0]], written_as="list")
    return True


def accumulated_in_place(name: str, receiver: cst.BaseExpression, args: list[Any], env: Env) -> Any:
    """`acc.add_(branch)`: the named tensor now holds what it held and the branch; None otherwise."""
    if name not in ACCUMULATE_IN_PLACE or not isinstance(receiver, cst.Name) or not args:
        return None
    if not isinstance(args[-1], Branch):
        return None
    merged = merge([env.names.get(receiver.value, UNKNOWN), args[-1]])
    env.names[receiver.value] = merged
    return merged


def mixes_depths(node: cst.Call, args: list[Any]) -> bool:
    """A layer handed the list `forward` fills with the stream as it goes (`states.append(x)`,
    then `x = self.mix(states)`): it returns a mix of the stream at several depths (DenseFormer's
    weighted averages, attention over the layers' outputs), not the sum of the adds before."""
    return any(
        isinstance(value, Seq) and filled_list(value) and sum(item is STREAM for item in value.items) > 1
        for arg, value in zip(node.args, args)
        if not arg.star
    )

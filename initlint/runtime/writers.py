"""Residual writers by observation: which parameters add their output into the stream.

One eval-mode forward on a tiny input runs under a `TorchDispatchMode` that tags tensors:

- *stream*: the model input and every embedding output, then whatever the residual adds
  produce (`x + f(x)`); a norm of the stream stays the stream but is marked *normed* (a
  residual add into a normed tensor is post-norm, where GPT-2 depth scaling does not apply);
- *branch*: the output of a matmul/conv with a parameter weight, carried through views,
  activations, attention and element-wise products, with the scalar factors applied to it
  since that weight (`/ math.sqrt(2 * n_layer)` at run time);
- *derived*: anything else computed from the stream (norm statistics, GELU's `x**3` term).

A reduction (mean, variance, norm) marks its output a *statistic* of its input, and stays one
through the maps a norm applies to it (`rsqrt(var + eps)`, `clamp_min`, `expand`). A branch
multiplied or divided by a statistic of its own writer's output, or put through a norm op, is
renormalised (OLMo2's `x + norm(o_proj(...))`): its scale is the norm's, whatever the weight's
std, so it carries no writer, and adding it to the stream is no residual write by that weight.

An add of a stream and a branch is a residual write by the branch's weight. Seeding from the
embedding output avoids calling GELU's `x + 0.044715 * x**3` a residual add, and matmuls on
parameters see weights used without a hook (`nn.MultiheadAttention.out_proj`, HF Conv1D).
The same pass names the other roles: embedding, head (produces the output), linear, norm gain
(with the offset of `x * (1 + w)` norms), norm bias, bias, gain.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from initlint import roles
from initlint.runtime.trace import storage_key

_LINEAR_OPS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "convolution", "conv1d", "conv2d", "_convolution"}
_NORM_OPS = {
    "native_layer_norm",
    "layer_norm",
    "native_group_norm",
    "group_norm",
    "rms_norm",
    "_fused_rms_norm",
    "native_batch_norm",
    "_native_batch_norm_legit_no_training",
    "_native_batch_norm_legit",
}
#: Reductions: their output is a statistic of their input (a mean square, a variance, a norm).
_REDUCTION_OPS = {"mean", "sum", "var", "std", "var_mean", "std_mean", "linalg_vector_norm", "norm", "amax"}
#: Element-wise maps that keep a statistic one (`rsqrt(mean + eps)`, `norm.clamp_min(eps)`).
_STATISTIC_MAPS = {"pow", "sqrt", "rsqrt", "reciprocal", "abs", "clamp", "clamp_min", "clamp_max"}
_ADD_OPS = {"add", "add_", "sub", "sub_"}
#: Ops cutting a tensor into pieces: pieces of the stream are the parts a reversible block adds into.
_SPLIT_OPS = {"split", "split_with_sizes", "chunk", "unbind", "unsafe_split", "unsafe_chunk"}
#: Ops joining a list of tensors (their first argument).
_JOIN_OPS = {"cat", "concat", "concatenate", "stack"}
_SCALE_OPS = {"mul", "mul_", "div", "div_"}
#: Ops whose outputs carry their input's tag unchanged (views, copies, eval-mode dropout).
_CARRY_OPS = {
    "view",
    "_unsafe_view",
    "reshape",
    "t",
    "transpose",
    "permute",
    "expand",
    "unsqueeze",
    "squeeze",
    "contiguous",
    "clone",
    "alias",
    "detach",
    "_to_copy",
    "to",
    "slice",
    "select",
    "split",
    "split_with_sizes",
    "chunk",
    "unbind",
    "flatten",
    "unflatten",
    "cat",
    "native_dropout",
    "dropout",
    "_reshape_alias",
    "as_strided",
    "index_select",
    "narrow",
    "repeat",
    "repeat_interleave",
    "roll",
    "flip",
}


@dataclass
class Tag:
    kind: str  # stream | branch | derived | gain (param + constant)
    normed: bool = False
    writer: int | None = None  # storage key of the weight
    factor: float | None = 1.0  # scalar factor since the weight; None once non-linear
    offset: float = 0.0  # for `gain`: w + offset is the effective gain
    #: The stream state: a stream's own version; for a branch, the version its input read.
    version: int | None = None
    #: A reduction of the tagged tensor (or a map of one): what a norm divides by.
    statistic: bool = False
    #: For a branch: the other branches summed into it (`attn_out(a) + ff_out(f)`, a parallel
    #: block whose parent adds the sum into the stream), each with its own writer and factor.
    joined: tuple[Tag, ...] = ()
    #: For a stream: which piece of a split stream it is (`x1, x2 = x.chunk(2, dim=-1)` of a
    #: reversible block); None for the whole stream.
    part: int | None = None


@dataclass
class ResidualWrite:
    param_key: int
    factor: float | None
    into_normed: bool
    order: int
    #: The stream version the branch read: writes that read the same state are one residual layer.
    reads: int | None = None
    #: The piece of a split stream it adds into (Tag.part); None for the whole stream.
    part: int | None = None


@dataclass
class ForwardMap:
    """What the forward pass showed, by parameter name (ties: every name)."""

    roles: dict[str, str] = field(default_factory=dict)
    #: Residual writes in forward order: (parameter names, factor, post-norm, order).
    writes: list[tuple[list[str], float | None, bool, int]] = field(default_factory=list)
    norm_offsets: dict[str, float] = field(default_factory=dict)
    #: Residual layers N: writes whose branches read the same stream state count once, so a
    #: parallel block (`x + attn(ln(x)) + mlp(ln(x))`) is one layer and a GPT-2 block two.
    layers: int = 0
    materialised: bool = False
    notes: list[str] = field(default_factory=list)
    #: False when the forward pass failed: no role, not even "unused", was seen.
    observed: bool = True
    #: The weight whose product is the model's output, under every name; an embedding tied to
    #: the head keeps the role "embedding" but is here too.
    head: list[str] = field(default_factory=list)

    @property
    def writer_names(self) -> set[str]:
        return {name for names, *_ in self.writes for name in names}

    @property
    def post_norm(self) -> bool:
        # Post-norm adds into a normed stream; only the first may not (no norm after the embedding).
        normed = sum(1 for _, _, into_normed, _ in self.writes if into_normed)
        return normed > 0 and normed >= len(self.writes) - 1

    def factors(self) -> dict[str, float | None]:
        return {name: factor for names, factor, _, _ in self.writes for name in names}

    def to_dict(self) -> dict[str, Any]:
        return {
            "roles": self.roles,
            "writes": [list(w) for w in self.writes],
            "norm_offsets": self.norm_offsets,
            "layers": self.layers,
            "materialised": self.materialised,
            "notes": self.notes,
            "observed": self.observed,
            "head": self.head,
        }


def _scalar(value) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


class ProvenanceMode(TorchDispatchMode):
    def __init__(self, param_keys: dict[int, torch.nn.Parameter], inputs: list[torch.Tensor]) -> None:
        super().__init__()
        self.params = param_keys
        self.tags: dict[int, Tag] = {}
        self._alive: list[torch.Tensor] = []  # ids stay unique while the pass runs
        self.roles: dict[int, str] = {}
        self.offsets: dict[int, float] = {}
        self.writes: list[ResidualWrite] = []
        self._versions = 0
        for tensor in inputs:
            self._tag(tensor, self._new_stream())

    def _new_stream(self, normed: bool = False, part: int | None = None) -> Tag:
        self._versions += 1
        return Tag("stream", normed=normed, version=self._versions, part=part)

    def _tag(self, tensor, tag: Tag | None) -> None:
        if isinstance(tensor, torch.Tensor) and tag is not None:
            self.tags[id(tensor)] = tag
            self._alive.append(tensor)

    def tag_of(self, value) -> Tag | None:
        return self.tags.get(id(value)) if isinstance(value, torch.Tensor) else None

    def _stream_tag(self, value) -> Tag | None:
        """The value's tag when it is (a piece of) the residual stream."""
        tag = self.tag_of(value)
        return tag if tag is not None and tag.kind == "stream" else None

    def param_key(self, value) -> int | None:
        if not isinstance(value, torch.Tensor):
            return None
        key = storage_key(value)
        return key if key in self.params else None

    def _role(self, key: int, role: str) -> None:
        # A weight seen as a writer stays one; an embedding that is also the head is "embedding".
        self.roles[key] = roles.stronger(self.roles.get(key), role)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        try:
            self._observe(func.overloadpacket.__name__, args, kwargs, out)
        except Exception:  # noqa: BLE001 -- observation must never break the forward
            pass
        return out

    def _observe(self, name: str, args: tuple, kwargs: dict, out) -> None:
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        first_out = out[0] if isinstance(out, (tuple, list)) and out else out
        if name in ("embedding", "_embedding_bag"):
            key = self.param_key(args[0])
            if key is not None:
                self._role(key, "embedding")
            self._tag(first_out, self._new_stream())
        elif name in _LINEAR_OPS:
            self._linear(name, args, out)
        elif name in _NORM_OPS:
            self._norm(args, first_out, out)
        elif name in _REDUCTION_OPS:
            self._reduce(tensors, out)
        elif name in _STATISTIC_MAPS and getattr(self.tag_of(args[0]), "statistic", False):
            self._tag(out, self.tag_of(args[0]))
        elif name in _ADD_OPS:
            self._add(name, args, kwargs, out)
        elif name in _SCALE_OPS:
            self._scale(name, args, out)
        elif name in _SPLIT_OPS and (whole := self._stream_tag(args[0])) is not None:
            for part, piece in enumerate(out if isinstance(out, (tuple, list)) else (out,)):
                self._tag(piece, replace(whole, part=part))
        elif name in _JOIN_OPS and args and isinstance(args[0], (tuple, list)):
            self._join(list(args[0]), out)
        elif name in _CARRY_OPS:
            tag = self.tag_of(args[0]) if args else None
            for item in out if isinstance(out, (tuple, list)) else (out,):
                self._tag(item, tag)
        else:
            self._default(tensors, out)

    def _linear(self, name: str, args: tuple, out) -> None:
        weights = [(i, self.param_key(a)) for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        weight_key = next((key for i, key in weights if key is not None and args[i].dim() >= 2), None)
        for _, key in weights:
            if key is not None and key != weight_key:
                self._role(key, "bias")
        if weight_key is not None:
            self._role(weight_key, "linear")
            source = next(
                (tag for tag in map(self.tag_of, args) if tag is not None and tag.kind in ("stream", "branch")), None
            )
            self._tag(out, Tag("branch", writer=weight_key, version=source.version if source else None))
            return
        # activation x activation (attention): the value side (last operand) carries the writer.
        carried = [tag for tag in map(self.tag_of, args) if tag is not None and tag.kind == "branch"]
        self._tag(
            out,
            Tag("branch", writer=carried[-1].writer, factor=carried[-1].factor, version=carried[-1].version)
            if carried
            else (Tag("derived") if any(self.tag_of(a) for a in args) else None),
        )

    def _norm(self, args: tuple, first_out, out) -> None:
        tag = self.tag_of(args[0])
        for index, role in ((2, "norm-gain"), (3, "norm-bias")):
            if len(args) > index:
                key = self.param_key(args[index])
                if key is not None:
                    self._role(key, role)
        if len(args) > 1 and isinstance(args[1], torch.Tensor):  # group/batch norm: weight at 1
            key = self.param_key(args[1])
            if key is not None:
                self._role(key, "norm-gain")
        if tag is not None and tag.kind == "stream":
            self._tag(first_out, Tag("stream", normed=True, version=tag.version))
        elif tag is not None and tag.kind == "branch":
            self._tag(first_out, _renormalised(tag))
        else:
            self._tag(first_out, tag)

    def _reduce(self, tensors: list, out) -> None:
        tag = self.tag_of(tensors[0]) if tensors else None
        if tag is None:
            return
        kind = "branch" if tag.kind == "branch" else "derived"
        writer = tag.writer if kind == "branch" else None
        statistic = Tag(kind, writer=writer, factor=None, version=tag.version, statistic=True)
        for item in out if isinstance(out, (tuple, list)) else (out,):
            self._tag(item, statistic)

    def _add(self, name: str, args: tuple, kwargs: dict, out) -> None:
        left = args[0]
        # An operand of the op: a tensor, a Python number, or None when there is no second one.
        right: Any = args[1] if len(args) > 1 else None
        alpha = _scalar(kwargs.get("alpha", args[2] if len(args) > 2 else 1))
        alpha = 1.0 if alpha is None else alpha
        if name.startswith("sub"):
            alpha = -alpha
        left_key, right_key = self.param_key(left), self.param_key(right)
        offset = _scalar(right)
        if offset is not None:
            if left_key is not None:  # `1 + w`: a gain applied as an offset
                self._tag(out, Tag("gain", writer=left_key, offset=offset * alpha))
            else:
                self._tag(out, self.tag_of(left))
            return
        ltag, rtag = self.tag_of(left), self.tag_of(right)
        for key, tensor, other in ((left_key, left, rtag), (right_key, right, ltag)):
            if key is not None:
                # A table added to the stream is a learned position embedding, and so is one of
                # several vectors added to a branch's output (a ViT's positions after the patch
                # projection, learned tokens a branch writes into); anything else a bias.
                beside_stream = other is not None and other.kind == "stream"
                table = other is not None and other.kind == "branch" and _several_vectors(self.params[key])
                self._role(key, "position" if beside_stream and tensor.dim() >= 2 or table else "bias")
        stream, branch = _pair(ltag, rtag, alpha)
        if stream is not None and branch is not None:
            for tag in (branch, *branch.joined):
                if tag.writer is not None:
                    write = ResidualWrite(
                        tag.writer, tag.factor, stream.normed, len(self.writes), tag.version, stream.part
                    )
                    self.writes.append(write)
                    self._role(tag.writer, "writer")
            self._tag(out, self._new_stream(part=stream.part))
        elif stream is not None:
            self._tag(out, self._new_stream(part=stream.part))
        elif ltag is not None and rtag is not None and _writes(ltag) and _writes(rtag):
            self._tag(out, _joined(ltag, _times(rtag, alpha)))
        else:
            self._tag(out, ltag if ltag is not None and ltag.kind == "branch" else rtag or ltag)

    def _scale(self, name: str, args: tuple, out) -> None:
        left = args[0]
        # An operand of the op: a tensor, a Python number, or None when there is no second one.
        right: Any = args[1] if len(args) > 1 else None
        number = _scalar(right)
        ltag = self.tag_of(left)
        if number is not None:
            if ltag is not None:
                self._tag(out, _times(ltag, number if name.startswith("mul") else 1 / number))
            return
        rtag = self.tag_of(right)
        operands = ((left, ltag), (right, rtag))
        stream = next(((t, tag) for t, tag in operands if tag is not None and tag.kind == "stream"), None)
        if stream is not None:
            self._scale_stream(stream, operands, out)
            return
        for tensor, _tag in operands:
            key = self.param_key(tensor)
            if key is not None:
                self._role(key, "gain")
        self._tag(out, _product(ltag, rtag))

    def _scale_stream(self, stream: tuple, operands: tuple, out) -> None:
        """The stream scaled by the other operand: a norm gain, a constant, a hand-written norm or else derived."""
        other_tensor, other_tag = next((t, tag) for t, tag in operands if t is not stream[0])
        key = self.param_key(other_tensor)
        if other_tag is not None and other_tag.kind == "gain" and other_tag.writer is not None:  # x_normed * (1 + w)
            self._role(other_tag.writer, "norm-gain")
            self.offsets[other_tag.writer] = other_tag.offset
            self._tag(out, Tag("stream", normed=True, version=stream[1].version))
        elif key is not None:
            self._role(key, "norm-gain" if stream[1].normed else "gain")
            self._tag(out, Tag("stream", normed=stream[1].normed, version=stream[1].version))
        elif other_tag is None and isinstance(other_tensor, torch.Tensor) and other_tensor.numel() == 1:
            # A constant in a 0-dim tensor (Gemma's `embeds * normalizer`): still the stream.
            self._tag(out, Tag("stream", normed=stream[1].normed, version=stream[1].version))
        elif (
            other_tag is not None
            and other_tag.kind == "derived"
            and isinstance(other_tensor, torch.Tensor)
            and (other_tensor.numel() < stream[0].numel() or _statistic_of(other_tag, stream[1]))
        ):
            # x * rsqrt(mean(x**2)): a hand-written norm; `F.normalize(x)` divides by the norm
            # expanded to the stream's shape first.
            self._tag(out, Tag("stream", normed=True, version=stream[1].version))
        else:
            self._tag(out, Tag("derived"))

    def _join(self, tensors: list, out) -> None:
        """`torch.cat([y1, y2], dim=-1)`: pieces of the stream joined are the whole stream again
        (a reversible block hands on its two halves so); the stream joined with other tokens
        (learned ones, a branch's output: einops' `pack([agents, x], "b * d")`) is still the
        stream, normalised where each stream piece is, and what a branch adds into the joined
        tensor it adds into the stream. Anything else as any other op."""
        tags = [self._stream_tag(tensor) for tensor in tensors if isinstance(tensor, torch.Tensor)]
        streams = [tag for tag in tags if tag is not None]
        if streams:
            self._tag(out, self._new_stream(normed=all(tag.normed for tag in streams)))
        else:
            self._default(tensors, out)

    def _default(self, tensors: list, out) -> None:
        tags = [tag for tag in map(self.tag_of, tensors) if tag is not None]
        if not tags:
            return
        branch = next((tag for tag in tags if tag.kind == "branch"), None)
        tag = (
            Tag("branch", writer=branch.writer, factor=None, version=branch.version)
            if branch is not None
            else Tag("derived")
        )
        for item in out if isinstance(out, (tuple, list)) else (out,):
            self._tag(item, tag)


def _several_vectors(param: torch.Tensor) -> bool:
    """A parameter holding more than one vector (a table of rows), not one broadcast vector."""
    return param.dim() >= 2 and param.numel() > param.shape[-1]


def _statistic_of(tag: Tag, stream: Tag) -> bool:
    """A reduction of that very stream state (or a map of one, or a view: `expand_as(x)`)."""
    return tag.statistic and tag.version is not None and tag.version == stream.version


def _renormalised(branch: Tag) -> Tag:
    """A branch divided by its own scale: the norm sets its std, its writer's weight no longer does."""
    return Tag("branch", normed=True, factor=None, version=branch.version)


def _product(ltag: Tag | None, rtag: Tag | None) -> Tag | None:
    """The tag of a product (or quotient) of two tensors, neither of them the stream."""
    tags = [tag for tag in (ltag, rtag) if tag is not None]
    if not tags:
        return None
    if all(tag.statistic for tag in tags):  # a gain times a statistic is still one
        return replace(tags[0], factor=None)
    branches = [tag for tag in tags if tag.kind == "branch"]
    if not branches:
        return Tag("derived")
    branch = next((tag for tag in branches if not tag.statistic), branches[0])
    if any(tag.statistic and tag.writer == branch.writer for tag in branches if tag is not branch):
        return _renormalised(branch)  # x * rsqrt(mean(x**2)), x / x.norm(): a norm on the branch
    return Tag("branch", normed=branch.normed, writer=branch.writer, factor=None, version=branch.version)


def _pair(ltag: Tag | None, rtag: Tag | None, alpha: float) -> tuple[Tag | None, Tag | None]:
    """(stream tag, branch tag with its factor in the add) when an add joins a stream and a branch."""
    if ltag is not None and ltag.kind == "stream" and rtag is not None and rtag.kind == "branch":
        return ltag, _times(rtag, alpha)
    if rtag is not None and rtag.kind == "stream" and ltag is not None and ltag.kind == "branch":
        return rtag, ltag
    if ltag is not None and ltag.kind == "stream":
        return ltag, None
    if rtag is not None and rtag.kind == "stream":
        return rtag, None
    return None, None


def _times(tag: Tag, number: float) -> Tag:
    """A tag scaled by a constant: its factor, and those of the branches summed into it."""
    factor = None if tag.factor is None else tag.factor * number
    return replace(tag, factor=factor, joined=tuple(_times(other, number) for other in tag.joined))


def _writes(tag: Tag) -> bool:
    return tag.kind == "branch" and tag.writer is not None and not tag.statistic


def _joined(left: Tag, right: Tag) -> Tag:
    """The sum of two branches of different weights: each still writes whatever adds the sum."""
    seen = {left.writer, *(other.writer for other in left.joined)}
    added = [other for other in (replace(right, joined=()), *right.joined) if other.writer not in seen]
    return replace(left, joined=left.joined + tuple(added)) if added else left


def _output_tensor(output) -> torch.Tensor | None:
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict) or hasattr(output, "values"):
        output = list(output.values())
    if isinstance(output, (tuple, list)):
        for item in output:
            found = _output_tensor(item)
            if found is not None and found.is_floating_point():
                return found
    return None


def map_forward(model: torch.nn.Module, inputs: dict[str, Any] | tuple) -> ForwardMap:
    """Run one eval-mode forward under the provenance mode; the model's device decides where."""
    keys: dict[int, list[str]] = {}
    params: dict[int, torch.nn.Parameter] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        keys.setdefault(storage_key(param), []).append(name)
        params[storage_key(param)] = param
    tensor_inputs = [
        v for v in (inputs.values() if isinstance(inputs, dict) else inputs) if isinstance(v, torch.Tensor)
    ]
    was_training = model.training
    model.eval()
    mode = ProvenanceMode(params, tensor_inputs)
    try:
        with torch.no_grad(), _unfused_attention(), mode:
            output = model(**inputs) if isinstance(inputs, dict) else model(*inputs)
            head = mode.tag_of(_output_tensor(output))
    finally:
        model.train(was_training)
    if (
        head is not None
        and head.kind == "branch"
        and head.writer is not None
        and mode.roles.get(head.writer) != "embedding"
    ):
        mode.roles[head.writer] = "head"
    result = ForwardMap()
    if head is not None and head.kind == "branch" and head.writer is not None:
        result.head = list(keys.get(head.writer, []))
    for key, role in mode.roles.items():
        for name in keys.get(key, []):
            result.roles[name] = role
    for key, offset in mode.offsets.items():
        for name in keys.get(key, []):
            result.norm_offsets[name] = offset
    result.writes = [(keys.get(w.param_key, []), w.factor, w.into_normed, w.order) for w in mode.writes]
    result.layers = residual_layers([w.reads for w in mode.writes], [w.part for w in mode.writes])
    return result


@contextlib.contextmanager
def _unfused_attention() -> Iterator[None]:
    """In eval mode without grad, PyTorch runs `nn.MultiheadAttention` and its transformer layers
    as one fused op on CPU and CUDA, hiding the matmuls and adds this pass reads: switch that
    fast path off for the forward (torch >= 2.2 has the switch; the meta device never fuses)."""
    mha = getattr(torch.backends, "mha", None)
    if mha is None or not hasattr(mha, "set_fastpath_enabled"):
        yield
        return
    enabled = mha.get_fastpath_enabled()
    mha.set_fastpath_enabled(False)
    try:
        yield
    finally:
        mha.set_fastpath_enabled(enabled)


def residual_layers(reads: list[int | None], parts: list[int | None] | None = None) -> int:
    """Distinct stream states read by the writes' branches; a write of unknown origin is its own.
    Writes into a piece of a split stream (a reversible block: `y1 = x1 + f(x2)`, `y2 = x2 +
    g(y1)`) sum only within that piece: N counts those into the whole stream and those into the
    piece that takes the most, as the static analysis counts them."""
    pieces = parts if parts is not None else [None] * len(reads)
    by_part: dict[int | None, list[int | None]] = {}
    for read, part in zip(reads, pieces):
        by_part.setdefault(part, []).append(read)

    def distinct(states: list[int | None]) -> int:
        return len({read for read in states if read is not None}) + sum(1 for read in states if read is None)

    whole = distinct(by_part.pop(None, []))
    return whole + max((distinct(states) for states in by_part.values()), default=0)

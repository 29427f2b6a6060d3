"""What the residual stream really receives: effective writer stds and the stream's variance.

A writer's weight std is not what the stream sees when the forward scales the branch before
the add (`x + attn(x) / sqrt(2L)`, a LayerScale gain, `torch.add(x, y, alpha=...)`). One
forward pass under a `TorchFunctionMode` follows each writer's output through the ops that
keep its shape (dropout, scalar and per-channel products, views, casts) to the add that merges
it into a same-shaped tensor (the stream). The runtime factor is std(added operand) /
std(writer output): exact for scalar factors, an RMS average for per-channel gains. The
effective std is the writer's weight std times that factor.

Hooks on the writer module capture its output; `nn.MultiheadAttention` calls its `out_proj`
weight directly (the submodule's hooks never fire), so its own output stands in for it.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, NamedTuple

from initlint.runtime.probe import block_container, evaluating, first_tensor, measurement_finding
from initlint.runtime.stats import COMPARISON_FALSE_ALARM, PRACTICAL_FLOOR, critical_z, std_z, tensor_stats

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch import nn

#: A runtime factor within this of 1 is no runtime scaling: the weight std test covers it.
RUNTIME_FACTOR_TOLERANCE = 0.05


@dataclass(frozen=True)
class WriterEffect:
    writer: str  # module name
    weight_std: float
    weight_numel: int
    output_std: float  # the writer module's output
    branch_std: float  # the operand merged into the stream
    runtime_factor: float  # branch_std / output_std; nan when no add into the stream was seen

    @property
    def effective_std(self) -> float:
        return self.weight_std * self.runtime_factor


@dataclass(frozen=True)
class StreamPoint:
    depth: int  # 0: the stream entering the first block; d: after block d-1
    block: str
    variance: float


def _std(tensor: "torch.Tensor") -> float:
    return float(tensor.detach().double().std())


class Writer(NamedTuple):
    name: str  # the writer module's qualified name
    watched: "nn.Module"  # the module whose output is the writer's output
    weight: "torch.Tensor"


def writer_module(model: "nn.Module", name: str) -> Writer:
    """Resolve a writer given as a module or parameter name to the module whose output to watch."""
    from torch import nn

    modules = dict(model.named_modules())
    if name not in modules and name.rpartition(".")[0] in modules:
        name = name.rpartition(".")[0]
    if name not in modules:
        raise KeyError(f"no module or parameter named {name!r} in the model")
    module = modules[name]
    parent = modules.get(name.rpartition(".")[0]) if "." in name else model
    if isinstance(parent, nn.MultiheadAttention) and module is parent.out_proj:
        return Writer(name, parent, module.weight)
    return Writer(name, module, module.weight)


def _add_functions(torch: Any) -> set[Any]:
    """Every spelling of `a + b` a residual add can take."""
    tensor = torch.Tensor
    return {torch.add, tensor.add, tensor.add_, tensor.__add__, tensor.__radd__, tensor.__iadd__}


def _joins_branches(writer_of: Any, tensors: list[Any], tagged: list[Any], result: Any) -> bool:
    if len(tagged) >= 2:
        return True  # two branches joining (parallel block): each is measured here
    return any(writer_of(value) is None and value.shape == result.shape for value in tensors)


def _branch_tracker_class():
    """Built on first use: `torch.overrides` must not load before torch is wanted."""
    import torch
    from torch.overrides import TorchFunctionMode

    adds = _add_functions(torch)

    class BranchTracker(TorchFunctionMode):
        """Tags each writer's output and the tensors derived from it shape for shape; records the add."""

        def __init__(self) -> None:
            super().__init__()
            self.tags: dict[int, tuple[str, torch.Tensor]] = {}
            self.branch_std: dict[str, float] = {}
            self.quiet = False  # set while a hook measures: its own ops must not be followed

        @contextmanager
        def paused(self) -> Iterator[None]:
            self.quiet = True
            try:
                yield
            finally:
                self.quiet = False

        def tag(self, tensor: torch.Tensor, writer: str) -> None:
            self.tags[id(tensor)] = (writer, tensor)  # the reference keeps the id from being reused

        def writer_of(self, value: Any) -> str | None:
            entry = self.tags.get(id(value)) if isinstance(value, torch.Tensor) else None
            return entry[0] if entry is not None and entry[1] is value else None

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            if self.quiet:
                return result
            tensors = [value for value in (*args, *kwargs.values()) if isinstance(value, torch.Tensor)]
            tagged = [(value, writer) for value in tensors if (writer := self.writer_of(value)) is not None]
            if not tagged or not isinstance(result, torch.Tensor):
                return result
            if func in adds and len(tensors) >= 2 and _joins_branches(self.writer_of, tensors, tagged, result):
                alpha = abs(float(kwargs.get("alpha", 1.0)))
                for value, writer in tagged:
                    self.branch_std.setdefault(writer, _std(value) * alpha)
                return result
            if len(tagged) == 1 and result.numel() == tagged[0][0].numel() and self.writer_of(result) is None:
                self.tag(result, tagged[0][1])
            return result

    return BranchTracker


def forward_measurements(
    model: "nn.Module", writers: Iterable[str], inputs: Any
) -> tuple[list[WriterEffect], list[StreamPoint]]:
    """One forward pass on `inputs` (a tensor, or a tuple/dict of arguments): one result per
    writer, and the stream variance entering the block stack and after every block."""
    resolved = [writer_module(model, name) for name in writers]
    tracker = _branch_tracker_class()()
    output_std: dict[str, float] = {}
    points: list[StreamPoint] = []

    def watch(name: str):
        def hook(module, args, output):
            tensor = output if not isinstance(output, (tuple, list)) else output[0]
            if name not in output_std:
                with tracker.paused():
                    output_std[name] = _std(tensor)
            tracker.tag(tensor, name)

        return hook

    def record(depth: int, block_name: str, value: Any) -> None:
        tensor = first_tensor(value, preferred=("last_hidden_state",))
        if tensor is not None and tensor.is_floating_point():
            with tracker.paused():
                points.append(StreamPoint(depth, block_name, float(tensor.detach().double().var())))

    handles = [writer.watched.register_forward_hook(watch(writer.name)) for writer in resolved]
    found = block_container(model)
    if found is not None:
        container_name, blocks = found
        names = [f"{container_name}.{index}" if container_name else str(index) for index in range(len(blocks))]
        handles.append(
            blocks[0].register_forward_pre_hook(
                lambda module, args, kwargs: record(0, names[0], args or tuple(kwargs.values())), with_kwargs=True
            )
        )
        for index, block in enumerate(blocks):
            handles.append(
                block.register_forward_hook(
                    lambda module, args, output, index=index: record(index + 1, names[index], output)
                )
            )
    try:
        with evaluating(model), tracker:
            _call(model, inputs)
    finally:
        for handle in handles:
            handle.remove()
    return [_effect(writer, output_std, tracker.branch_std) for writer in resolved], points


def writer_effects(model: "nn.Module", writers: Iterable[str], inputs: Any) -> list[WriterEffect]:
    return forward_measurements(model, writers, inputs)[0]


def stream_variance(model: "nn.Module", inputs: Any) -> list[StreamPoint]:
    """Variance of the residual stream entering the block stack and after every block."""
    return forward_measurements(model, (), inputs)[1]


def _effect(writer: Writer, output_std: dict[str, float], branch_std: dict[str, float]) -> WriterEffect:
    stats = tensor_stats(writer.weight)
    seen_output = output_std.get(writer.name, math.nan)
    seen_branch = branch_std.get(writer.name, math.nan)
    factor = seen_branch / seen_output if seen_output > 0 else math.nan
    return WriterEffect(writer.name, stats.std, stats.numel, seen_output, seen_branch, factor)


def _call(model: "nn.Module", inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, tuple):
        return model(*inputs)
    return model(inputs)


def stream_variance_as_expected(model: "nn.Module", inputs: Any, expected: Mapping[str, float]) -> list[StreamPoint]:
    """The stream variance this very model would show with every writer at its expected effective std.

    The reference curve for the observed one: each writer's weight is scaled by expected /
    effective for one forward pass (runtime factors stay as they are), then restored.
    """
    import torch

    saved: list[tuple[torch.Tensor, torch.Tensor]] = []
    try:
        with torch.no_grad():
            for name, effect in zip(expected, writer_effects(model, list(expected), inputs)):
                weight = writer_module(model, name).weight
                factor = effect.runtime_factor if math.isfinite(effect.runtime_factor) else 1.0
                seen = effect.weight_std * factor
                if seen > 0 and math.isfinite(seen):
                    saved.append((weight, weight.detach().clone()))
                    weight.mul_(expected[name] / seen)
        return stream_variance(model, inputs)
    finally:
        with torch.no_grad():
            for weight, original in saved:
                weight.copy_(original)


@dataclass(frozen=True)
class EffectVerdict:
    effect: WriterEffect
    expected_std: float
    ratio: float  # effective / expected
    z: float
    flagged: bool
    reason: str


def judge_effects(
    effects: Iterable[WriterEffect],
    expected: Mapping[str, float],
    family_false_alarm: float = COMPARISON_FALSE_ALARM,
    floor: float = PRACTICAL_FLOOR,
) -> list[EffectVerdict]:
    """Runtime scaling that moves a writer's effective std off its expected std.

    Only writers with a runtime factor beyond 5% of 1 are judged here (without one, the
    effective std is the weight std, which the parameter tests already cover). The weight's
    sample std is tested against expected / factor, so sampling noise is accounted for.
    """
    expected = {name.removesuffix(".weight"): std for name, std in expected.items()}
    items = [effect for effect in effects if effect.writer in expected]
    scaled = [effect for effect in items if _has_runtime_factor(effect)]
    limit = critical_z(len(scaled), family_false_alarm)
    verdicts = []
    for effect in items:
        target = expected[effect.writer]
        ratio = effect.effective_std / target if target > 0 else math.nan
        z, reason = 0.0, ""
        if effect in scaled and target > 0:
            z = std_z(effect.weight_std, target / effect.runtime_factor, effect.weight_numel)
            if abs(z) > limit and abs(ratio - 1.0) > floor:
                reason = (
                    f"writer {effect.writer} adds std {effect.effective_std:.4g} to the stream, expected"
                    f" {target:.4g} ({ratio:.3f}x): weight std {effect.weight_std:.4g} times a runtime factor"
                    f" {effect.runtime_factor:.4g}"
                )
        verdicts.append(EffectVerdict(effect, target, ratio, z, bool(reason), reason))
    return verdicts


def _has_runtime_factor(effect: WriterEffect) -> bool:
    return math.isfinite(effect.runtime_factor) and abs(effect.runtime_factor - 1.0) > RUNTIME_FACTOR_TOLERANCE


def effect_findings(verdicts: Iterable[EffectVerdict]) -> list[dict[str, Any]]:
    """One finding for all flagged writers (they share a cause: one runtime factor in the block)."""
    flagged = [verdict for verdict in verdicts if verdict.flagged]
    if not flagged:
        return []
    worst = max(flagged, key=lambda verdict: abs(math.log(verdict.ratio)))
    message = f"{len(flagged)} residual writer(s) add a different std to the stream than expected: {worst.reason}" + (
        f"; and {len(flagged) - 1} more" if len(flagged) > 1 else ""
    )
    return [
        measurement_finding(
            "INI108",
            message,
            [f"{verdict.effect.writer}.weight" for verdict in flagged],
            writers={
                verdict.effect.writer: {
                    "expected_std": verdict.expected_std,
                    "effective_std": verdict.effect.effective_std,
                    "weight_std": verdict.effect.weight_std,
                    "runtime_factor": verdict.effect.runtime_factor,
                    "ratio": verdict.ratio,
                    "z": verdict.z,
                }
                for verdict in flagged
            },
        )
    ]

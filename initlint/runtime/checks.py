"""Checks only a built model can answer: is the init idempotent, does the meta-device path
give the same model as the eager one, and are any blocks clones of each other?

Distributions are compared, never values (`comparison.py`): a second init draws new numbers.
"""

from __future__ import annotations

import copy
import inspect
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, NamedTuple, Sequence

from initlint.runtime.comparison import DistributionChange, NamedChange, compare_distributions
from initlint.runtime.probe import measurement_finding
from initlint.runtime.stats import TensorStats, parameter_stats, single_threaded, tensor_stats

if TYPE_CHECKING:  # pragma: no cover
    import torch
    from torch import nn

ENTRY_POINTS = ("init_weights", "reset_parameters", "post_init")
#: After `to_empty` the torch convention (FSDP, `nn.Module`s) is `reset_parameters()`: a model
#: that defines it means it as its meta-device recipe, even beside an `init_weights()`.
META_ENTRY_POINTS = ("reset_parameters", "init_weights", "post_init")


class InitEntry(NamedTuple):
    description: str
    run: Callable[[], Any]
    #: True for a public init the model offers as its whole init; False for the per-module
    #: `_init_weights` hook, which many correct models complete in `__init__` (nanoGPT scales
    #: its residual writers after `apply(_init_weights)`).
    complete: bool


def init_entry_point(model: "nn.Module", names: tuple[str, ...] = ENTRY_POINTS) -> InitEntry | None:
    """The model's init, callable without arguments: a public entry point, else `apply(_init_weights)`."""
    for name in names:
        method = getattr(model, name, None)
        if callable(method) and _callable_without_arguments(method):
            return InitEntry(f"{name}()", method, True)
    per_module = getattr(model, "_init_weights", None)
    if callable(per_module):
        return InitEntry("apply(_init_weights)", lambda: model.apply(per_module), False)
    return None


def _callable_without_arguments(method: Callable[..., Any]) -> bool:
    try:
        inspect.signature(method).bind()
    except (TypeError, ValueError):
        return False
    return True


# --- idempotency ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdempotencyResult:
    entry_point: str | None  # None: the model has no public init to call
    #: `DistributionChange`s, or the pipeline's changed requests (name and description only).
    changes: Sequence[NamedChange] = field(default_factory=list)


def check_idempotency(
    model: "nn.Module", seed: int = 0, measured: Mapping[str, TensorStats] | None = None
) -> IdempotencyResult:
    """Call the init entry point again on a deep copy; every distribution must stay the same.

    A public entry point is compared with the model as constructed (catches rescaling that
    compounds and generic re-inits that overwrite a special one); the `_init_weights` hook,
    often only part of the init, is compared with itself: one call against two.
    `measured`: the model's `parameter_stats`, when the caller has them already.
    """
    import torch

    twin = copy.deepcopy(model)
    entry = init_entry_point(twin)
    if entry is None:
        return IdempotencyResult(None)
    with torch.random.fork_rng(devices=[]), torch.no_grad():  # the caller's RNG stream stays as it was
        torch.manual_seed(seed)
        if entry.complete:
            reference = measured if measured is not None else parameter_stats(model)
        else:
            entry.run()
            reference = parameter_stats(twin)
        entry.run()
    description = entry.description if entry.complete else f"{entry.description} (twice vs once)"
    return IdempotencyResult(description, compare_distributions(reference, parameter_stats(twin)))


# --- meta parity ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetaParityResult:
    entry_point: str | None
    untouched: dict[str, int]  # parameter -> elements the init never wrote
    lost_buffers: list[str]  # buffers whose values differ from the eager build (or never written)
    missing_buffers: list[str]  # in one build and not the other
    lost_ties: list[tuple[str, ...]]  # parameter groups sharing storage eagerly but not after materialising
    changes: list[DistributionChange]
    skipped: str = ""  # why the check did not run (no public init to call after `to_empty`)

    @property
    def ok(self) -> bool:
        return not (self.untouched or self.lost_buffers or self.missing_buffers or self.lost_ties or self.changes)


NO_PUBLIC_INIT = "no public init (init_weights(), reset_parameters(), post_init()) to run after to_empty"


def check_meta_parity(factory: Callable[[], "nn.Module"], seed: int = 0, device: Any = "cpu") -> MetaParityResult:
    """Build on meta, `to_empty`, init (entry point, `tie_weights()` when defined); compare with eager.

    Before the init every parameter is filled with NaN and every buffer with a sentinel, so
    whatever the init does not write is found deterministically (in real life it is garbage).
    Models without a public init offer no meta path to check: the result says so (`skipped`).
    """
    import torch

    with torch.random.fork_rng(devices=[]):  # the caller's RNG stream stays as it was
        torch.manual_seed(seed)
        eager = factory().to(device)
        entry = init_entry_point(eager)
        if entry is None or not entry.complete:
            return MetaParityResult(None, {}, [], [], [], [], skipped=NO_PUBLIC_INIT)
        with torch.device("meta"):
            materialised = factory()
        materialised.to_empty(device=device)
        with torch.no_grad():
            for tensor in materialised.parameters():
                tensor.fill_(math.nan)
            for tensor in materialised.buffers():
                tensor.fill_(_sentinel(tensor))
        torch.manual_seed(seed)
        description = _run_init(materialised, META_ENTRY_POINTS)
    return MetaParityResult(
        entry_point=description,
        untouched=_untouched(materialised),
        lost_buffers=_lost_buffers(eager, materialised),
        missing_buffers=sorted(set(_buffer_names(eager)) ^ set(_buffer_names(materialised))),
        lost_ties=_lost_ties(eager, materialised),
        changes=compare_distributions(parameter_stats(eager), _finite_parameter_stats(materialised)),
    )


def _sentinel(tensor: "torch.Tensor") -> float | int | bool:
    """A value an init would not write: NaN, the most negative integer, True for masks."""
    import torch

    if tensor.is_floating_point() or tensor.is_complex():
        return math.nan
    if tensor.dtype == torch.bool:
        return True
    return torch.iinfo(tensor.dtype).min


def _run_init(model: "nn.Module", names: tuple[str, ...] = ENTRY_POINTS) -> str:
    import torch

    entry = init_entry_point(model, names)
    assert entry is not None, "checked on the eager build"
    with torch.no_grad():
        description = entry.description
        entry.run()
        if callable(getattr(model, "tie_weights", None)):
            model.tie_weights()
            description += " + tie_weights()"
    return description


def _untouched(model: "nn.Module") -> dict[str, int]:
    import torch

    with single_threaded():
        counts = {name: int(torch.isnan(tensor).sum()) for name, tensor in model.named_parameters()}
    return {name: count for name, count in counts.items() if count}


def _finite_parameter_stats(model: "nn.Module") -> dict[str, TensorStats]:
    # Untouched parameters are reported once, as untouched, not again as a distribution change.
    return {name: stats for name, stats in parameter_stats(model).items() if stats.finite}


def _buffer_names(model: "nn.Module") -> list[str]:
    return [name for name, _ in model.named_buffers()]


def _lost_buffers(eager: "nn.Module", materialised: "nn.Module") -> list[str]:
    import torch

    theirs = dict(materialised.named_buffers())
    lost = []
    for name, expected in eager.named_buffers():
        found = theirs.get(name)
        if found is None or found.shape != expected.shape:
            continue
        same = (
            torch.allclose(found, expected, equal_nan=True)
            if expected.is_floating_point()
            else torch.equal(found, expected)
        )
        if not same:
            lost.append(name)
    return lost


def _storage_groups(model: "nn.Module") -> set[tuple[str, ...]]:
    groups: dict[int, list[str]] = {}
    for name, tensor in model.named_parameters(remove_duplicate=False):
        groups.setdefault(tensor.untyped_storage().data_ptr(), []).append(name)
    return {tuple(sorted(names)) for names in groups.values() if len(names) > 1}


def _lost_ties(eager: "nn.Module", materialised: "nn.Module") -> list[tuple[str, ...]]:
    return sorted(_storage_groups(eager) - _storage_groups(materialised))


# --- clones -----------------------------------------------------------------------------------


def find_clones(model: "nn.Module", measured: Mapping[str, TensorStats] | None = None) -> list[tuple[str, ...]]:
    """Groups of distinct (untied) non-constant parameters holding exactly the same values.

    Identical tensors give bit-identical chunked statistics, so grouping on (shape, mean,
    std) finds the candidates in one pass (none when `measured` stats are passed in);
    `torch.equal` confirms them.
    """
    import torch

    candidates: dict[tuple, list[tuple[str, "torch.Tensor"]]] = {}
    for name, tensor in model.named_parameters():
        stats = measured[name] if measured is not None and name in measured else tensor_stats(tensor)
        if stats.constant is not None or not stats.finite or stats.numel < 2:
            continue
        candidates.setdefault((tuple(tensor.shape), tensor.dtype, stats.mean, stats.std), []).append((name, tensor))
    groups = []
    for members in candidates.values():
        while len(members) > 1:
            (first_name, first), rest = members[0], members[1:]
            same = [name for name, tensor in rest if torch.equal(tensor, first)]
            if same:
                groups.append((first_name, *same))
            members = [(name, tensor) for name, tensor in rest if name not in same]
    return sorted(groups)


# --- findings ---------------------------------------------------------------------------------


def _change_list(changes: Sequence[NamedChange], limit: int = 3) -> str:
    shown = "; ".join(f"{change.name}: {change.description}" for change in changes[:limit])
    return shown + (f"; and {len(changes) - limit} more" if len(changes) > limit else "")


def idempotency_findings(result: IdempotencyResult) -> list[dict[str, Any]]:
    if not result.changes:
        return []
    count = len(result.changes)
    message = f"calling {result.entry_point} a second time changes {count} parameter(s): {_change_list(result.changes)}"
    return [
        measurement_finding(
            "INI104",
            message,
            [change.name for change in result.changes],
            entry_point=result.entry_point,
            changes={change.name: change.description for change in result.changes},
        )
    ]


def meta_parity_findings(result: MetaParityResult) -> list[dict[str, Any]]:
    if result.ok:
        return []
    parts = []
    if result.untouched:
        parts.append(
            f"{len(result.untouched)} parameter(s) never written: "
            + ", ".join(f"{name} ({count} elements)" for name, count in list(result.untouched.items())[:3])
        )
    if result.lost_buffers:
        parts.append("buffers not recomputed: " + ", ".join(result.lost_buffers))
    if result.missing_buffers:
        parts.append("buffers present in only one build: " + ", ".join(result.missing_buffers))
    if result.lost_ties:
        parts.append("weight ties lost: " + ", ".join(" = ".join(group) for group in result.lost_ties))
    if result.changes:
        parts.append(f"distributions differ: {_change_list(result.changes)}")
    params = sorted(
        {
            *result.untouched,
            *(name for group in result.lost_ties for name in group),
            *(change.name for change in result.changes),
        }
    )
    message = f"meta build + to_empty + {result.entry_point} differs from the eager build: " + "; ".join(parts)
    return [
        measurement_finding(
            "INI105",
            message,
            params,
            untouched=result.untouched,
            lost_buffers=result.lost_buffers,
            missing_buffers=result.missing_buffers,
            lost_ties=[list(group) for group in result.lost_ties],
        )
    ]


def clone_findings(groups: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    if not groups:
        return []
    shown = "; ".join(" = ".join(group) for group in groups[:3]) + (
        f"; and {len(groups) - 3} more groups" if len(groups) > 3 else ""
    )
    message = (
        f"{len(groups)} group(s) of parameters start with identical values (a copied prototype never re-drawn): {shown}"
    )
    return [
        measurement_finding(
            "INI106", message, [name for group in groups for name in group], groups=[list(group) for group in groups]
        )
    ]

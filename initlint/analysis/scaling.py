"""What a std expression does with depth: GPT-2's 1/sqrt(2L), 1/sqrt(L), per-layer, 1/L..."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from initlint.analysis.knowledge.conventions import LAYER_INDEX, LAYER_INDEX_NAMES, WIDTH_NAMES
from initlint.analysis.model import Analysis, ModuleNode, Stack, final_init
from initlint.analysis.values import Monomial, Power

SQRT_HALF = 2**-0.5


@dataclass(frozen=True)
class DepthScaling:
    #: none, sqrt_2l, sqrt_l, per_layer, small_init, zero, other, unknown
    kind: str
    atom: str | None = None
    power: Power | None = None

    @property
    def has_depth_factor(self) -> bool:
        return self.kind in ("sqrt_2l", "sqrt_l", "per_layer", "small_init", "other")


def is_layer_atom(name: str) -> bool:
    return (
        name in LAYER_INDEX_NAMES
        or LAYER_INDEX in name
        or any(f"{n}" in name for n in LAYER_INDEX_NAMES if name.startswith("("))
    )


def is_depth_atom(name: str, depth_atoms: frozenset[str]) -> bool:
    return name in depth_atoms or name.startswith("(") and any(atom in name for atom in depth_atoms)


def is_width_atom(name: str) -> bool:
    return name in WIDTH_NAMES


def _close(value: float, target: float) -> bool:
    return abs(value - target) <= 0.02 * abs(target)


#: Below this magnitude a depth exponent does not scale (DeepNet's (8N)^-1/4 is the weakest scheme).
NEGLIGIBLE_EXPONENT = Fraction(1, 4)


def classify(std: Monomial | None, depth_atoms: frozenset[str], base: Monomial | None = None) -> DepthScaling:
    if std is None:
        return DepthScaling("unknown")
    if std.const == 0:
        return DepthScaling("zero")
    for name, exp in std.atoms:
        if exp != 0 and is_layer_atom(name):
            return DepthScaling("per_layer", name, std.power_of(name))
    depth = [(name, exp) for name, exp in std.atoms if is_depth_atom(name, depth_atoms)]
    if not depth:
        return DepthScaling("none")
    name, exp = depth[0]
    power = std.power_of(name)
    if exp == Fraction(-1):
        return DepthScaling("small_init", name, power)
    if 0 < -exp < NEGLIGIBLE_EXPONENT:
        # No published scheme shrinks this slowly with depth ((2L)^-0.05 is 0.85 at 12 layers):
        # a mistyped exponent, in effect no depth factor.
        return DepthScaling("negligible", name, power)
    if exp != Fraction(-1, 2):
        return DepthScaling("other", name, power)
    ratio = _ratio_to_base(std, base, name)
    if power is not None and _close(power.inner_coefficient, 2.0):
        return DepthScaling("sqrt_2l", name, power)
    if ratio is not None:
        if _close(ratio, SQRT_HALF):
            return DepthScaling("sqrt_2l", name, power)
        if _close(ratio, 1.0):
            return DepthScaling("sqrt_l", name, power)
        return DepthScaling("other", name, power)
    if power is not None and _close(power.inner_coefficient, 1.0):
        return DepthScaling("sqrt_l", name, power)
    return DepthScaling("other", name, power)


def _ratio_to_base(std: Monomial, base: Monomial | None, depth_atom: str) -> float | None:
    """std / base with the depth factor taken out, when both are comparable."""
    if base is None or base.const == 0:
        return None
    without_depth = Monomial(std.const, tuple((n, e) for n, e in std.atoms if n != depth_atom))
    if without_depth.atoms != base.atoms:
        return None
    return without_depth.const / base.const


def reference_std(root: ModuleNode, writers: set[int]) -> Monomial | None:
    """The std most ordinary (non-writer) linear weights of this model end with."""
    counts: dict[Monomial, int] = {}
    for _, module in root.named_modules():
        if module.kind != "linear" or id(module) in writers:
            continue
        weight = module.params.get("weight")
        if weight is None:
            continue
        final = final_init(weight)
        if final.certain and final.std is not None and final.kind in ("normal", "trunc_normal"):
            key = Monomial(final.std.const, final.std.atoms)
            counts[key] = counts.get(key, 0) + 1
    return max(counts, key=lambda std: counts[std]) if counts else None


def stack_scaling(analysis: Analysis, stack: Stack, std: Monomial | None) -> DepthScaling:
    # The std ordinary linears get in this model (found once per stack), else the configured `base-std`.
    base = stack.reference_std or Monomial.of(analysis.options.base_std)
    scaling = classify(std, analysis.depth_atoms, base)
    if scaling.kind == "none" and stack.depth.is_constant and std is not None and std.is_constant:
        # A stack of a number of blocks (copies chained by hand) owes a depth factor that is a
        # number too: a number other than the model's ordinary std may well hold it.
        if not (base.is_constant and base.const != 0 and _close(std.const / base.const, 1.0)):
            return DepthScaling("unknown")
    return scaling


def scale_atoms(analysis: Analysis, factor: Monomial) -> list[str]:
    """The depth or width quantities in a runtime factor (`/ math.sqrt(2 * self.n_layer)`)."""
    return [name for name in factor.atom_names() if is_depth_atom(name, analysis.depth_atoms) or is_width_atom(name)]

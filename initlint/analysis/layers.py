"""Library layers as the interpreter sees them: the registry's specs (`knowledge/`), plus the one
guess by name that no registry can hold (any `...LayerNorm` / `...RMSNorm` class is a norm)."""

from __future__ import annotations

from fractions import Fraction

from initlint.analysis.knowledge import Registry
from initlint.analysis.knowledge.specs import LayerSpec, ParamDefault
from initlint.analysis.knowledge.torch_nn import NORM_PARAMS
from initlint.analysis.values import Monomial

_INV_SQRT_FAN_IN = Monomial(1.0, (("fan_in", Fraction(-1, 2)),))


def layer_type(registry: Registry, qualified: str) -> LayerSpec | None:
    """The known type of a constructor, e.g. `torch.nn.Linear` or `transformers.pytorch_utils.Conv1D`."""
    known = registry.layer(qualified)
    if known is not None:
        return known
    last = qualified.rsplit(".", 1)[-1]
    if last.endswith(("LayerNorm", "RMSNorm")):
        return LayerSpec("norm", last, params=NORM_PARAMS)
    return None


def default_std(param: ParamDefault) -> Monomial | None:
    if param.std is None:
        return None
    std = Monomial.of(param.std)
    return _INV_SQRT_FAN_IN * std if param.over_sqrt_fan_in else std


def isinstance_by_name(layer: LayerSpec, class_name: str) -> bool:
    return class_name == layer.class_name or class_name in layer.also

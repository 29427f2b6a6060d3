"""Runtime verification: build the model, observe what its init really does.

    from initlint.runtime import verify
    report = verify(make_model, policy="gpt2")     # a zero-argument factory (or a model)
    assert report.ok, report

Importing this package does not import torch; `verify` does, when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from torch import nn

    from initlint.runtime.report import Report

__all__ = ["verify"]


def verify(
    model_or_factory: "nn.Module | Callable[[], nn.Module]",
    policy: str | None = None,
    *,
    materialize: bool = True,
    device: str = "cpu",
    input_shape: tuple[int, ...] | None = None,
    seed: int = 0,
    label: str | None = None,
) -> "Report":
    """Verify a model's init against a policy; returns a `Report` (`.ok`, `.findings`, `str()`).

    - A *factory* (zero-argument callable returning an `nn.Module`) is traced on the meta
      device, so the report knows what each parameter was asked to hold and where; with
      `materialize=True` (the default here: tests use small configs) it is also built for real
      and measured (sample stds, effective writer stds, idempotency, meta parity, clones,
      step-zero loss).
    - A built *model* can only be measured: requests are read off its values.

    `policy`: auto (default), gpt2, per-layer, small-init, zero-init, fan-in, none; optionally
    with a base std, e.g. "gpt2:0.01". `input_shape` for models that do not take token ids.
    Runs in-process: unlike the CLI there is no child process or time limit.
    """
    from torch import nn

    from initlint.runtime.pipeline import Options, verify_factory, verify_module
    from initlint.runtime.policy import Policy
    from initlint.runtime.report import Report

    options = Options(
        policy=Policy.parse(policy),
        device=device,
        materialize=materialize,
        input_shape=tuple(input_shape) if input_shape else None,
        seed=seed,
    )
    if isinstance(model_or_factory, nn.Module):
        return Report([verify_module(model_or_factory, options, label)])
    if not callable(model_or_factory):
        raise TypeError(
            f"verify() needs an nn.Module or a zero-argument factory, got {type(model_or_factory).__name__}"
        )
    name: str = label if label else getattr(model_or_factory, "__name__", "model")
    return Report([verify_factory(name, model_or_factory, options)])


def __getattr__(name: str) -> Any:
    # `initlint.runtime.Report` without importing torch-dependent modules eagerly.
    if name in ("Report", "ModelReport", "RuntimeFinding"):
        from initlint.runtime import report

        return getattr(report, name)
    raise AttributeError(name)
